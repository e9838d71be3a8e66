// Package curveplot draws learning curves the way every PNG of the project
// shows them: a line with its points as markers, a shaded band (a
// confidence interval or ±1 standard deviation), and the legend in a
// column right of the plot, where it cannot cover a line. It owns the
// palette (Tableau 10) and the PNG layout; what a curve means stays with
// the caller (train's per-run curves, train/study's IQM curves).
package curveplot
