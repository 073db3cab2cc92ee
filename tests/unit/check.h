/* SPDX-License-Identifier: Apache-2.0 */
/* check: assertions for the C unit tests. Each names the file, the line and
 * the expression, and for equality both values; a failed assertion counts
 * and the test goes on, so one run shows every failure. main returns
 * check_exit(), which fails a test that ran no check at all. */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_passes;

#define CHECK(expr)                                                                    \
	do {                                                                           \
		if (expr) {                                                            \
			check_passes++;                                                \
		} else {                                                               \
			check_failures++;                                              \
			fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #expr); \
		}                                                                      \
	} while (0)

#define CHECK_INT_EQ(a, b)                                                             \
	do {                                                                           \
		long long va_ = (long long)(a), vb_ = (long long)(b);                   \
		if (va_ == vb_) {                                                      \
			check_passes++;                                                \
		} else {                                                               \
			check_failures++;                                              \
			fprintf(stderr, "%s:%d: %s == %s: %lld != %lld\n", __FILE__, __LINE__, \
				#a, #b, va_, vb_);                                      \
		}                                                                      \
	} while (0)

#define CHECK_STR_EQ(a, b)                                                             \
	do {                                                                           \
		const char *sa_ = (a), *sb_ = (b);                                      \
		if (sa_ && sb_ && strcmp(sa_, sb_) == 0) {                              \
			check_passes++;                                                \
		} else {                                                               \
			check_failures++;                                              \
			fprintf(stderr, "%s:%d: %s == %s:\n  \"%s\"\n  \"%s\"\n", __FILE__,  \
				__LINE__, #a, #b, sa_ ? sa_ : "(null)", sb_ ? sb_ : "(null)"); \
		}                                                                      \
	} while (0)

/* A test that ran no check proved nothing: it fails, saying so. */
static inline int check_exit(const char *name)
{
	printf("%s: %d checks passed, %d failed\n", name, check_passes, check_failures);
	if (!check_passes && !check_failures)
		fprintf(stderr, "%s: no check ran: a test that cannot fail is a defect\n", name);
	return check_failures || !check_passes ? 1 : 0;
}

#endif
