/* SPDX-License-Identifier: Apache-2.0 */
/* svg: the charts of a campaign report, as SVG text in a growing buffer:
 * no script, no font or network resource, so that the HTML file stands on
 * its own. Only audit/ includes this. */
#ifndef AUDIT_SVG_H
#define AUDIT_SVG_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/textbuf.h"


/* A chart: a plot area mapping data to pixels, log or linear per axis. */
struct chart {
	double x0, x1, y0, y1; /* data ranges */
	int logx, logy;
	double width, height, left, right, top, bottom; /* pixels */
};

/* Open an <svg> of the chart's size with a title, axes, and tick labels
 * (xticks at the given data values with their labels; y ticks chosen). */
void audit_chart_begin(struct ev_textbuf *t, const struct chart *c, const char *title, const char *xlabel,
		 const char *ylabel, const double *xticks, const char *const *xtick_labels, size_t nx);
double audit_chart_x(const struct chart *c, double x);
double audit_chart_y(const struct chart *c, double y);
/* Characters, not bytes, of UTF-8 text: a run or arm may be named in any
 * script. */
size_t audit_text_chars(const char *s);

/* About how wide text is drawn at font_size in a sans-serif face: for
 * placing labels so that none crosses the chart's edge. */
double audit_text_width(const char *s, double font_size);

/* The same line, of a given width and opacity (a run's faint line behind
 * its cell's median). */
void audit_chart_polyline_styled(struct ev_textbuf *t, const struct chart *c, const double *xs, const double *ys, size_t n,
				 const char *cls, const char *colour, const char *name, double width, double opacity);

/* A line through n points, of class cls and colour, data-series name. */
void audit_chart_polyline(struct ev_textbuf *t, const struct chart *c, const double *xs, const double *ys, size_t n,
		    const char *cls, const char *colour, const char *name);
void audit_chart_dot(struct ev_textbuf *t, const struct chart *c, double x, double y, const char *cls, const char *colour,
	       const char *tip);
/* A legend entry in the top right corner, the k-th. */
void audit_chart_legend(struct ev_textbuf *t, const struct chart *c, int k, const char *colour, const char *label);
void audit_chart_end(struct ev_textbuf *t);

/* The k-th colour of the palette. */
const char *audit_chart_colour(size_t k);

#endif
