#include "sessionsource.h"

namespace sandscope {

QString SessionSource::home() const
{
    const qsizetype at = transcriptPath.indexOf(QLatin1String("/.claude/projects/"));
    return at > 0 ? transcriptPath.left(at) : QString();
}

} // namespace sandscope
