// A small C++ file for the text preview: keywords, strings, comments and numbers.
#include <iostream>
#include <string>
#include <vector>

namespace demo {

struct Point {
    double x = 0.0;
    double y = 0.0;
};

/* Sums the coordinates of all points. */
double total(const std::vector<Point> &points)
{
    double sum = 0;
    for (const Point &p : points)
        sum += p.x + p.y;
    return sum;
}

} // namespace demo

int main(int argc, char **argv)
{
    const std::vector<demo::Point> points = {{1.5, 2.0}, {3.0, -4.25}};
    std::cout << "total: " << demo::total(points) << " args: " << argc << '\n';
    return argv[0] ? 0 : 1;
}
