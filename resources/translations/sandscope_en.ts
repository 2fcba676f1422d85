<?xml version='1.0' encoding='utf-8'?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>CompareJob</name>
    <message numerus="yes">
        <source>%1 is not a Claude Code run: no stream-json, recording or transcript records in %n line(s)</source>
        <translation>
            <numerusform>%1 is not a Claude Code run: no stream-json, recording or transcript records in %n line</numerusform>
            <numerusform>%1 is not a Claude Code run: no stream-json, recording or transcript records in %n lines</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ProbeSwapCheck</name>
    <message numerus="yes">
        <source>A looks at its file after %n attempt(s)</source>
        <translation>
            <numerusform>A looks at its file after %n attempt</numerusform>
            <numerusform>A looks at its file after %n attempts</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RunNodeText</name>
    <message numerus="yes">
        <source>%n todo(s)</source>
        <translation>
            <numerusform>%n todo</numerusform>
            <numerusform>%n todos</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RunParser</name>
    <message numerus="yes">
        <source>%n background task(s)</source>
        <translation>
            <numerusform>%n background task</numerusform>
            <numerusform>%n background tasks</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>cleanup</name>
    <message numerus="yes">
        <source>%n item(s); %1 to delete, %2
</source>
        <translation>
            <numerusform>%n item; %1 to delete, %2
</numerusform>
            <numerusform>%n items; %1 to delete, %2
</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Running %1 on %n member(s), each through its admin command</source>
        <translation>
            <numerusform>Running %1 on %n member, each through its admin command</numerusform>
            <numerusform>Running %1 on %n members, each through its admin command</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>compare</name>
    <message numerus="yes">
        <source>%n tool call(s)</source>
        <translation>
            <numerusform>%n tool call</numerusform>
            <numerusform>%n tool calls</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>fleet</name>
    <message numerus="yes">
        <source>%n user(s) in all (--users lists where each lives)
</source>
        <translation>
            <numerusform>%n user in all (--users lists where each lives)
</numerusform>
            <numerusform>%n users in all (--users lists where each lives)
</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>live</name>
    <message numerus="yes">
        <source>on %n fleet member(s), each through its admin command</source>
        <translation>
            <numerusform>on %n fleet member, each through its admin command</numerusform>
            <numerusform>on %n fleet members, each through its admin command</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>probe</name>
    <message numerus="yes">
        <source>%n attempt(s): %1 returned B's own file, %2 refused, %3 unusable</source>
        <translation>
            <numerusform>%n attempt: %1 returned B's own file, %2 refused, %3 unusable</numerusform>
            <numerusform>%n attempts: %1 returned B's own file, %2 refused, %3 unusable</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n attempt(s): %1 written, %2 refused, %3 unusable</source>
        <translation>
            <numerusform>%n attempt: %1 written, %2 refused, %3 unusable</numerusform>
            <numerusform>%n attempts: %1 written, %2 refused, %3 unusable</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Reachable: B's list of %n process(es) includes A's process %1.</source>
        <translation>
            <numerusform>Reachable: B's list of %n process includes A's process %1.</numerusform>
            <numerusform>Reachable: B's list of %n processes includes A's process %1.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Scoped: B's list of %n process(es) does not include A's process.</source>
        <translation>
            <numerusform>Scoped: B's list of %n process does not include A's process.</numerusform>
            <numerusform>Scoped: B's list of %n processes does not include A's process.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>replay</name>
    <message numerus="yes">
        <source> · %n turn(s)</source>
        <translation>
            <numerusform> · %n turn</numerusform>
            <numerusform> · %n turns</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>, %n round trip(s)</source>
        <translation>
            <numerusform>, %n round trip</numerusform>
            <numerusform>, %n round trips</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> · %n tool call(s), %1 failed, %2 without result</source>
        <translation>
            <numerusform> · %n tool call, %1 failed, %2 without result</numerusform>
            <numerusform> · %n tool calls, %1 failed, %2 without result</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::AdminOverviewPage</name>
    <message numerus="yes">
        <source>scanning… %n user(s) so far</source>
        <translation>
            <numerusform>scanning… %n user so far</numerusform>
            <numerusform>scanning… %n users so far</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n user(s)</source>
        <translation>
            <numerusform>%n user</numerusform>
            <numerusform>%n users</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n member(s), each through its admin command</source>
        <translation>
            <numerusform>%n member, each through its admin command</numerusform>
            <numerusform>%n members, each through its admin command</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::ArtifactsPanel</name>
    <message numerus="yes">
        <source>%n file(s) created or changed since the run started.</source>
        <translation>
            <numerusform>%n file created or changed since the run started.</numerusform>
            <numerusform>%n files created or changed since the run started.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::AttachRunDialog</name>
    <message numerus="yes">
        <source>%n run(s) in %1.</source>
        <translation>
            <numerusform>%n run in %1.</numerusform>
            <numerusform>%n runs in %1.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::CleanupModel</name>
    <message numerus="yes">
        <source>%n item(s), %1 to delete</source>
        <translation>
            <numerusform>%n item, %1 to delete</numerusform>
            <numerusform>%n items, %1 to delete</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n day(s)</source>
        <translation>
            <numerusform>%n day</numerusform>
            <numerusform>%n days</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::CleanupPage</name>
    <message numerus="yes">
        <source>%n item(s)</source>
        <translation>
            <numerusform>%n item</numerusform>
            <numerusform>%n items</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n user(s)</source>
        <translation>
            <numerusform>%n user</numerusform>
            <numerusform>%n users</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n day(s)</source>
        <translation>
            <numerusform>%n day</numerusform>
            <numerusform>%n days</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Loaded %1 from %2; %n line(s) not understood.</source>
        <translation>
            <numerusform>Loaded %1 from %2; %n line not understood.</numerusform>
            <numerusform>Loaded %1 from %2; %n lines not understood.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Dry run done: plans of %1 of %n member(s), </source>
        <translation>
            <numerusform>Dry run done: plans of %1 of %n member, </numerusform>
            <numerusform>Dry run done: plans of %1 of %n members, </numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Dry run on %n member(s)… </source>
        <translation>
            <numerusform>Dry run on %n member… </numerusform>
            <numerusform>Dry run on %n members… </numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Saved %n plan(s): %1</source>
        <translation>
            <numerusform>Saved %n plan: %1</numerusform>
            <numerusform>Saved %n plans: %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::CleanupRunner</name>
    <message numerus="yes">
        <source>%1 with a plan of %n item(s) to delete, %2 bytes (%3)</source>
        <translation>
            <numerusform>%1 with a plan of %n item to delete, %2 bytes (%3)</numerusform>
            <numerusform>%1 with a plan of %n items to delete, %2 bytes (%3)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::ComparePage</name>
    <message numerus="yes">
        <source>%n call(s)</source>
        <translation>
            <numerusform>%n call</numerusform>
            <numerusform>%n calls</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1: %n line(s) skipped (%2)</source>
        <translation>
            <numerusform>%1: %n line skipped (%2)</numerusform>
            <numerusform>%1: %n lines skipped (%2)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::ConnectionDialog</name>
    <message numerus="yes">
        <source>%n member(s): %1</source>
        <translation>
            <numerusform>%n member: %1</numerusform>
            <numerusform>%n members: %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::FileActions</name>
    <message numerus="yes">
        <source>Uploading %n file(s) to %1…</source>
        <translation>
            <numerusform>Uploading %n file to %1…</numerusform>
            <numerusform>Uploading %n files to %1…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Uploaded %n file(s) to %1</source>
        <translation>
            <numerusform>Uploaded %n file to %1</numerusform>
            <numerusform>Uploaded %n files to %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::FilePreviewLoader</name>
    <message numerus="yes">
        <source>Folder %1 — %n item(s)</source>
        <translation>
            <numerusform>Folder %1 — %n item</numerusform>
            <numerusform>Folder %1 — %n items</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::FilesPage</name>
    <message numerus="yes">
        <source>%n so far, measuring…</source>
        <translation>
            <numerusform>%n so far, measuring…</numerusform>
            <numerusform>%n so far, measuring…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n in ~</source>
        <translation>
            <numerusform>%n in ~</numerusform>
            <numerusform>%n in ~</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::FleetProbe</name>
    <message numerus="yes">
        <source>Finding where the router sends %n user(s)</source>
        <translation>
            <numerusform>Finding where the router sends %n user</numerusform>
            <numerusform>Finding where the router sends %n users</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::FollowChannel</name>
    <message numerus="yes">
        <source>%1 (gave up after %n attempt(s))</source>
        <translation>
            <numerusform>%1 (gave up after %n attempt)</numerusform>
            <numerusform>%1 (gave up after %n attempts)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::LiveChat</name>
    <message numerus="yes">
        <source>Uploaded %1 of %n attachment(s)</source>
        <translation>
            <numerusform>Uploaded %1 of %n attachment</numerusform>
            <numerusform>Uploaded %1 of %n attachments</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Uploading %n attachment(s) into chat %1 before the turn starts…</source>
        <translation>
            <numerusform>Uploading %n attachment into chat %1 before the turn starts…</numerusform>
            <numerusform>Uploading %n attachments into chat %1 before the turn starts…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) will be uploaded and named in the next prompt.</source>
        <translation>
            <numerusform>%n file will be uploaded and named in the next prompt.</numerusform>
            <numerusform>%n files will be uploaded and named in the next prompt.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::LivePage</name>
    <message numerus="yes">
        <source>starting on %n member(s)…</source>
        <translation>
            <numerusform>starting on %n member…</numerusform>
            <numerusform>starting on %n members…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>watching %1 of %n member(s)</source>
        <translation>
            <numerusform>watching %1 of %n member</numerusform>
            <numerusform>watching %1 of %n members</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::PreviewImage</name>
    <message numerus="yes">
        <source>, first of %n frame(s)</source>
        <translation>
            <numerusform>, first of %n frame</numerusform>
            <numerusform>, first of %n frames</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::ProbePage</name>
    <message numerus="yes">
        <source>%n result(s) · %1</source>
        <translation>
            <numerusform>%n result · %1</numerusform>
            <numerusform>%n results · %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Cancelled after %n result(s); the probe removed what it had created.</source>
        <translation>
            <numerusform>Cancelled after %n result; the probe removed what it had created.</numerusform>
            <numerusform>Cancelled after %n results; the probe removed what it had created.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n check(s) FAIL: a user reached another user's resources. Select a red cell for the evidence.</source>
        <translation>
            <numerusform>%n check FAIL: a user reached another user's resources. Select a red cell for the evidence.</numerusform>
            <numerusform>%n checks FAIL: a user reached another user's resources. Select a red cell for the evidence.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n check(s) could not run (ERROR): isolation there is not proven.</source>
        <translation>
            <numerusform>%n check could not run (ERROR): isolation there is not proven.</numerusform>
            <numerusform>%n checks could not run (ERROR): isolation there is not proven.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n cell(s) differ from %1 (marked in the matrix):</source>
        <translation>
            <numerusform>%n cell differ from %1 (marked in the matrix):</numerusform>
            <numerusform>%n cells differ from %1 (marked in the matrix):</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::RunPage</name>
    <message numerus="yes">
        <source>%n item(s) were not exported: %1</source>
        <translation>
            <numerusform>%n item were not exported: %1</numerusform>
            <numerusform>%n items were not exported: %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n damaged recording line(s) skipped: %1</source>
        <translation>
            <numerusform>%n damaged recording line skipped: %1</numerusform>
            <numerusform>%n damaged recording lines skipped: %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Playback: %n damaged line(s) skipped: %1</source>
        <translation>
            <numerusform>Playback: %n damaged line skipped: %1</numerusform>
            <numerusform>Playback: %n damaged lines skipped: %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::RunPageSearch</name>
    <message numerus="yes">
        <source>%Ln match(es) so far, searching… %1%</source>
        <translation>
            <numerusform>%Ln match so far, searching… %1%</numerusform>
            <numerusform>%Ln matches so far, searching… %1%</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln match(es)</source>
        <translation>
            <numerusform>%Ln match</numerusform>
            <numerusform>%Ln matches</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::RunTabs</name>
    <message numerus="yes">
        <source>Cannot open %1 of %n file(s): %2</source>
        <translation>
            <numerusform>Cannot open %1 of %n file: %2</numerusform>
            <numerusform>Cannot open %1 of %n files: %2</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::SessionsPage</name>
    <message numerus="yes">
        <source>%n session(s) of %1</source>
        <translation>
            <numerusform>%n session of %1</numerusform>
            <numerusform>%n sessions of %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n hit(s)</source>
        <translation>
            <numerusform>%n hit</numerusform>
            <numerusform>%n hits</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>every user on the fleet's %n member(s)</source>
        <translation>
            <numerusform>every user on the fleet's %n member</numerusform>
            <numerusform>every user on the fleet's %n members</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::TimelineModel</name>
    <message numerus="yes">
        <source>Sub-agent: %n call(s)</source>
        <translation>
            <numerusform>Sub-agent: %n call</numerusform>
            <numerusform>Sub-agent: %n calls</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::TimelineView</name>
    <message numerus="yes">
        <source>%Ln call(s)</source>
        <translation>
            <numerusform>%Ln call</numerusform>
            <numerusform>%Ln calls</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::UsageCollector</name>
    <message numerus="yes">
        <source>Adding up %n record(s)…</source>
        <translation>
            <numerusform>Adding up %n record…</numerusform>
            <numerusform>Adding up %n records…</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::UsagePage</name>
    <message numerus="yes">
        <source>%n user(s)</source>
        <translation>
            <numerusform>%n user</numerusform>
            <numerusform>%n users</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n day(s)</source>
        <translation>
            <numerusform>%n day</numerusform>
            <numerusform>%n days</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n session(s)</source>
        <translation>
            <numerusform>%n session</numerusform>
            <numerusform>%n sessions</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n turn(s)</source>
        <translation>
            <numerusform>%n turn</numerusform>
            <numerusform>%n turns</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n tool call(s)</source>
        <translation>
            <numerusform>%n tool call</numerusform>
            <numerusform>%n tool calls</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n error(s)</source>
        <translation>
            <numerusform>%n error</numerusform>
            <numerusform>%n errors</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Skipped %n damaged line(s), first: %1</source>
        <translation>
            <numerusform>Skipped %n damaged line, first: %1</numerusform>
            <numerusform>Skipped %n damaged lines, first: %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Figures of %1 of %n member(s).</source>
        <translation>
            <numerusform>Figures of %1 of %n member.</numerusform>
            <numerusform>Figures of %1 of %n members.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sandscope::UserMove</name>
    <message numerus="yes">
        <source>%n process(es) of the user still run on %1: the home would change while it moves</source>
        <translation>
            <numerusform>%n process of the user still runs on %1: the home would change while it moves</numerusform>
            <numerusform>%n processes of the user still run on %1: the home would change while it moves</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n process(es) of the user run on %1 now</source>
        <translation>
            <numerusform>%n process of the user runs on %1 now</numerusform>
            <numerusform>%n processes of the user run on %1 now</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n entry(ies) differ from what the new home has: they go to ~/.sandscope-moved-from-%1-&lt;time&gt;/</source>
        <translation>
            <numerusform>%n entry differs from what the new home has: it goes to ~/.sandscope-moved-from-%1-&lt;time&gt;/</numerusform>
            <numerusform>%n entries differ from what the new home has: they go to ~/.sandscope-moved-from-%1-&lt;time&gt;/</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n entry(ies) of the old home are not in the new one, e.g. %1</source>
        <translation>
            <numerusform>%n entry of the old home is not in the new one: %1</numerusform>
            <numerusform>%n entries of the old home are not in the new one, e.g. %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1's home moved from %2 to %3 (%n entry(ies))</source>
        <translation>
            <numerusform>%1's home moved from %2 to %3 (%n entry)</numerusform>
            <numerusform>%1's home moved from %2 to %3 (%n entries)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>search</name>
    <message numerus="yes">
        <source>Searching every home on %n member(s)</source>
        <translation>
            <numerusform>Searching every home on %n member</numerusform>
            <numerusform>Searching every home on %n members</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sessions</name>
    <message numerus="yes">
        <source>Listing every home's sessions on %n member(s)</source>
        <translation>
            <numerusform>Listing every home's sessions on %n member</numerusform>
            <numerusform>Listing every home's sessions on %n members</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>usage</name>
    <message numerus="yes">
        <source>on %n fleet member(s)</source>
        <translation>
            <numerusform>on %n fleet member</numerusform>
            <numerusform>on %n fleet members</numerusform>
        </translation>
    </message>
</context>
</TS>
