/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/svg.h"

const char *audit_chart_colour(size_t k)
{
	static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
					      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
	return palette[k % (sizeof palette / sizeof *palette)];
}

static double scale(double v, double a, double b, int logs)
{
	if (logs) {
		v = log10(v > 0 ? v : 1e-9);
		a = log10(a > 0 ? a : 1e-9);
		b = log10(b > 0 ? b : 1e-9);
	}
	return b > a ? (v - a) / (b - a) : 0.5;
}

double audit_chart_x(const struct chart *c, double x)
{
	return c->left + scale(x, c->x0, c->x1, c->logx) * (c->width - c->left - c->right);
}

double audit_chart_y(const struct chart *c, double y)
{
	return c->height - c->bottom - scale(y, c->y0, c->y1, c->logy) * (c->height - c->top - c->bottom);
}

static void y_label(char *out, size_t cap, double v)
{
	if (v >= 1e9)
		snprintf(out, cap, "%gs", v / 1e9);
	else if (v >= 1e6)
		snprintf(out, cap, "%gms", v / 1e6);
	else if (v >= 1e3)
		snprintf(out, cap, "%gus", v / 1e3);
	else
		snprintf(out, cap, "%g", v);
}

size_t audit_text_chars(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

double audit_text_width(const char *s, double font_size)
{
	/* sans-serif glyphs average about 0.55 em; 0.62 keeps a margin */
	return (double)audit_text_chars(s) * font_size * 0.62;
}

/* A label's anchor: centred on x unless that would cross the chart's
 * edge, then flush with it. */
static const char *anchor_for(const struct chart *c, double x, double w)
{
	if (x + w / 2 > c->width - 2)
		return "end";
	if (x - w / 2 < 2)
		return "start";
	return "middle";
}

void audit_chart_begin(struct ev_textbuf *t, const struct chart *c, const char *title, const char *xlabel,
		 const char *ylabel, const double *xticks, const char *const *xtick_labels, size_t nx)
{
	/* the drawing scales with the page (width 100%, height in proportion):
	 * every coordinate below stays inside the viewBox */
	ev_textbuf_add(t, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		 "preserveAspectRatio=\"xMinYMin meet\" style=\"width:100%%;height:auto\" role=\"img\">\n",
		 c->width, c->height, c->width, c->height);
	ev_textbuf_add(t, "<title>");
	ev_textbuf_escaped(t, title);
	ev_textbuf_add(t, "</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	double l = c->left, r = c->width - c->right, top = c->top, b = c->height - c->bottom;
	ev_textbuf_add(t, "<g class=\"axes\" stroke=\"#444\" fill=\"none\"><path d=\"M%.1f %.1fV%.1fH%.1f\"/></g>\n", l, top, b, r);
	ev_textbuf_add(t, "<g class=\"ticks\" font-family=\"sans-serif\" font-size=\"11\" fill=\"#333\">\n");
	for (size_t i = 0; i < nx; i++) {
		double x = audit_chart_x(c, xticks[i]);
		ev_textbuf_add(t, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>", x, top, x, b);
		ev_textbuf_add(t, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, b + 14,
			       anchor_for(c, x, audit_text_width(xtick_labels[i], 11)));
		ev_textbuf_escaped(t, xtick_labels[i]);
		ev_textbuf_add(t, "</text>\n");
	}
	/* y ticks: decades on a log axis, five steps on a linear one */
	double ys[40];
	size_t ny = 0;
	if (c->logy) {
		for (double d = pow(10, floor(log10(c->y0 > 0 ? c->y0 : 1))); d <= c->y1 * 1.0001 && ny < 40; d *= 10)
			if (d >= c->y0 * 0.9999)
				ys[ny++] = d;
	} else if (c->y1 > c->y0) {
		/* round steps: 1, 2 or 5 times a power of ten, about five of them */
		double raw = (c->y1 - c->y0) / 5, mag = pow(10, floor(log10(raw))), step = mag;
		if (raw / mag > 5)
			step = 10 * mag;
		else if (raw / mag > 2)
			step = 5 * mag;
		else if (raw / mag > 1)
			step = 2 * mag;
		for (double y = ceil(c->y0 / step) * step; y <= c->y1 && ny < 40; y += step)
			ys[ny++] = y;
	}
	for (size_t i = 0; i < ny; i++) {
		char label[32];
		double y = audit_chart_y(c, ys[i]);
		y_label(label, sizeof label, ys[i]);
		ev_textbuf_add(t, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>", l, y, r, y);
		ev_textbuf_add(t, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", l - 4, y + 4, label);
	}
	ev_textbuf_add(t, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (l + r) / 2, c->height - 4);
	ev_textbuf_escaped(t, xlabel);
	ev_textbuf_add(t, "</text><text transform=\"translate(12 %.1f) rotate(-90)\" text-anchor=\"middle\">", (top + b) / 2);
	ev_textbuf_escaped(t, ylabel);
	/* a title longer than the chart is set smaller, never cut */
	double room = c->width - l - 4, size = 13, need = audit_text_width(title, 13) * 1.05;
	if (need > room)
		size = 13 * room / need;
	ev_textbuf_add(t, "</text><text x=\"%.1f\" y=\"14\" font-size=\"%.1f\" font-weight=\"bold\">", l, size);
	ev_textbuf_escaped(t, title);
	ev_textbuf_add(t, "</text></g>\n");
}

void audit_chart_polyline(struct ev_textbuf *t, const struct chart *c, const double *xs, const double *ys, size_t n,
		    const char *cls, const char *colour, const char *name)
{
	audit_chart_polyline_styled(t, c, xs, ys, n, cls, colour, name, 1.5, 1);
}

void audit_chart_polyline_styled(struct ev_textbuf *t, const struct chart *c, const double *xs, const double *ys, size_t n,
				 const char *cls, const char *colour, const char *name, double width, double opacity)
{
	ev_textbuf_add(t, "<polyline class=\"%s\" data-series=\"", cls);
	ev_textbuf_escaped(t, name);
	ev_textbuf_add(t, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" stroke-opacity=\"%.2f\" points=\"", colour,
		       width, opacity);
	for (size_t i = 0; i < n; i++)
		ev_textbuf_add(t, "%s%.1f,%.1f", i ? " " : "", audit_chart_x(c, xs[i]), audit_chart_y(c, ys[i]));
	ev_textbuf_add(t, "\"><title>");
	ev_textbuf_escaped(t, name);
	ev_textbuf_add(t, "</title></polyline>\n");
}

void audit_chart_dot(struct ev_textbuf *t, const struct chart *c, double x, double y, const char *cls, const char *colour,
	       const char *tip)
{
	ev_textbuf_add(t, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>", cls, audit_chart_x(c, x),
		 audit_chart_y(c, y), colour);
	ev_textbuf_escaped(t, tip);
	ev_textbuf_add(t, "</title></circle>\n");
}

void audit_chart_legend(struct ev_textbuf *t, const struct chart *c, int k, const char *colour, const char *label)
{
	/* right-aligned inside the plot, as wide as its own label */
	double end = c->width - c->right - 4, y = c->top + 12 + 16 * k;
	double x = end - audit_text_width(label, 11) - 16;
	ev_textbuf_add(t, "<g class=\"legend\" font-family=\"sans-serif\" font-size=\"11\"><rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"3\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
		 x, y - 4, colour, end, y);
	ev_textbuf_escaped(t, label);
	ev_textbuf_add(t, "</text></g>\n");
}

void audit_chart_end(struct ev_textbuf *t)
{
	ev_textbuf_add(t, "</svg>\n");
}
