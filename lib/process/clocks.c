/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/process/clocks.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ANSWER_MAX 65536
#define ANSWER_WAIT_MS 2000

static json_t *unavailable(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static json_t *unavailable(const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	return json_string(text);
}

static long long monotonic_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Runs argv (an absolute path fixed in the code), its stdout into out
 * (NUL-terminated, at most ANSWER_MAX) and its stderr's first line into
 * why; at most ANSWER_WAIT_MS, then killed. @return its exit status, or
 * -1 (why says what happened). */
static int answer_of(char *const argv[], char *out, char *why, size_t why_cap)
{
	int po[2], pe[2];
	out[0] = why[0] = 0;
	if (pipe2(po, O_CLOEXEC) != 0)
		return snprintf(why, why_cap, "pipe: %s", strerror(errno)), -1;
	if (pipe2(pe, O_CLOEXEC) != 0) {
		snprintf(why, why_cap, "pipe: %s", strerror(errno));
		close(po[0]);
		close(po[1]);
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	posix_spawnattr_t at;
	posix_spawnattr_init(&at);
	sigset_t none, reset;
	sigemptyset(&none);
	sigemptyset(&reset);
	sigaddset(&reset, SIGPIPE);
	posix_spawnattr_setsigdefault(&at, &reset);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	static char *const envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL};
	pid_t pid;
	/* program: fixed in the code (chronyc, pmc), asked for the clock's state only */
	int e = posix_spawn(&pid, argv[0], &fa, &at, argv, envp);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	close(po[1]);
	close(pe[1]);
	if (e) {
		snprintf(why, why_cap, "%s: %s", argv[0], strerror(e));
		close(po[0]);
		close(pe[0]);
		return -1;
	}
	size_t n = 0, m = 0;
	char err[512];
	struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
	long long deadline = monotonic_ms() + ANSWER_WAIT_MS;
	int open_fds = 2, late = 0;
	while (open_fds > 0) {
		long long left = deadline - monotonic_ms();
		if (left <= 0) {
			late = 1;
			break;
		}
		if (poll(fds, 2, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int k = 0; k < 2; k++) {
			if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			char *buf = k ? err : out;
			size_t *used = k ? &m : &n, cap = k ? sizeof err : ANSWER_MAX;
			char sink[4096];
			ssize_t got = *used + 1 < cap ? read(fds[k].fd, buf + *used, cap - 1 - *used)
						      : read(fds[k].fd, sink, sizeof sink);
			if (got > 0 && *used + 1 < cap)
				*used += (size_t)got;
			else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
				close(fds[k].fd);
				fds[k].fd = -1;
				open_fds--;
			}
		}
	}
	for (int k = 0; k < 2; k++)
		if (fds[k].fd >= 0)
			close(fds[k].fd);
	out[n] = 0;
	err[m] = 0;
	if (late)
		kill(pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	err[strcspn(err, "\n")] = 0;
	if (late) {
		snprintf(why, why_cap, "%s did not answer within %d s", argv[0], ANSWER_WAIT_MS / 1000);
		return -1;
	}
	snprintf(why, why_cap, "%s", err);
	if (!WIFEXITED(status)) {
		snprintf(why, why_cap, "%s ended by signal %d", argv[0], WIFSIGNALED(status) ? WTERMSIG(status) : 0);
		return -1;
	}
	return WEXITSTATUS(status);
}

int ev_clocks_seconds_ns(const char *text, long long *ns)
{
	const char *p = text;
	int negative = *p == '-';
	if (*p == '-' || *p == '+')
		p++;
	if (*p < '0' || *p > '9')
		return -1;
	long long whole = 0, frac = 0;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((whole = whole * 10 + (*p - '0')) > 9000000000LL) /* 285 years: no clock figure */
			return -1;
	int digits = 0;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (digits < 9) {
				frac = frac * 10 + (*p - '0');
				digits++;
			}
	if (*p)
		return -1;
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = (negative ? -1 : 1) * (whole * 1000000000LL + frac);
	return 0;
}

static const char *const time_states[] = {"TIME_OK", "TIME_INS", "TIME_DEL", "TIME_OOP", "TIME_WAIT", "TIME_ERROR"};

/* The kernel's NTP state (ntp_adjtime with no change asked). */
static json_t *kernel_view(void)
{
	struct timex t;
	memset(&t, 0, sizeof t);
	int state = ntp_adjtime(&t);
	if (state < 0)
		return unavailable("unavailable: ntp_adjtime: %s", strerror(errno));
	static const struct {
		int bit;
		const char *name;
	} flags[] = {{STA_PLL, "PLL"},	       {STA_PPSFREQ, "PPSFREQ"}, {STA_PPSTIME, "PPSTIME"}, {STA_FLL, "FLL"},
		     {STA_INS, "INS"},	       {STA_DEL, "DEL"},	 {STA_UNSYNC, "UNSYNC"},   {STA_FREQHOLD, "FREQHOLD"},
		     {STA_PPSSIGNAL, "PPSSIGNAL"}, {STA_PPSJITTER, "PPSJITTER"}, {STA_PPSWANDER, "PPSWANDER"},
		     {STA_PPSERROR, "PPSERROR"}, {STA_CLOCKERR, "CLOCKERR"}, {STA_NANO, "NANO"},
		     {STA_MODE, "MODE"},       {STA_CLK, "CLK"}};
	json_t *status = json_array();
	for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
		if (t.status & flags[i].bit)
			json_array_append_new(status, json_string(flags[i].name));
	long long offset_ns = (long long)t.offset * ((t.status & STA_NANO) ? 1 : 1000);
	int synchronised = !(t.status & STA_UNSYNC) && state != TIME_ERROR;
	return json_pack("{s:s, s:b, s:o, s:I, s:I, s:I, s:I, s:I}", "state",
			 state >= 0 && state <= 5 ? time_states[state] : "unknown", "synchronised", synchronised,
			 "status", status, "offset_ns", (json_int_t)offset_ns, "frequency_ppb",
			 (json_int_t)((long long)t.freq * 1000 / 65536), "maxerror_us", (json_int_t)t.maxerror,
			 "esterror_us", (json_int_t)t.esterror, "tai", (json_int_t)t.tai);
}

/* chronyc -c tracking: 14 comma-separated fields (chrony 4). */
static json_t *chrony_view(void)
{
	static const char chronyc[] = "/usr/bin/chronyc";
	if (access(chronyc, X_OK) != 0)
		return unavailable("unavailable: %s: %s (chrony is not installed)", chronyc, strerror(errno));
	char *out = malloc(ANSWER_MAX), why[600];
	if (!out)
		return json_string("unavailable: out of memory");
	char *const argv[] = {(char *)chronyc, "-c", "-n", "tracking", NULL};
	int rc = answer_of(argv, out, why, sizeof why);
	json_t *v;
	char *field[16];
	size_t nf = 0;
	if (rc != 0) {
		out[strcspn(out, "\n")] = 0;
		v = unavailable("unavailable: chronyc tracking: %s%s", why[0] ? why : out[0] ? out : "no answer",
				rc > 0 ? " (is chronyd running?)" : "");
		free(out);
		return v;
	}
	out[strcspn(out, "\n")] = 0;
	/* fields may be empty (a local reference has no name) */
	for (char *f = out; f && nf < 16; nf++) {
		field[nf] = f;
		if ((f = strchr(f, ',')) != NULL)
			*f++ = 0;
	}
	long long system_ns, last_ns, rms_ns, delay_ns, dispersion_ns;
	if (nf != 14 || ev_clocks_seconds_ns(field[4], &system_ns) || ev_clocks_seconds_ns(field[5], &last_ns) ||
	    ev_clocks_seconds_ns(field[6], &rms_ns) || ev_clocks_seconds_ns(field[10], &delay_ns) ||
	    ev_clocks_seconds_ns(field[11], &dispersion_ns)) {
		v = unavailable("unavailable: chronyc tracking: not the 14 fields of chrony 4 (%s)", nf ? field[0] : "empty");
		free(out);
		return v;
	}
	int stratum = atoi(field[2]);
	/* chronyc prints the correction still to apply (NTP time - system
	 * time): a clock that is fast has a negative one */
	v = json_pack("{s:s, s:s, s:i, s:s, s:I, s:I, s:I, s:s, s:s, s:s, s:I, s:I, s:s, s:s, s:b}", "reference_id",
		      field[0], "reference", field[1], "stratum", stratum, "ref_time", field[3], "system_fast_ns",
		      (json_int_t)-system_ns, "last_offset_ns", (json_int_t)last_ns, "rms_offset_ns", (json_int_t)rms_ns,
		      "frequency_ppm", field[7], "residual_frequency_ppm", field[8], "skew_ppm", field[9],
		      "root_delay_ns", (json_int_t)delay_ns, "root_dispersion_ns", (json_int_t)dispersion_ns,
		      "update_interval_s", field[12], "leap_status", field[13], "synchronised",
		      strcmp(field[13], "Not synchronised") != 0 && stratum > 0 && stratum < 16 &&
			      strcmp(field[0], "00000000") != 0);
	free(out);
	return v;
}

/* pmc's TIME_STATUS_NP from the local ptp4l (UDS). */
static json_t *ptp_view(void)
{
	static const char pmc[] = "/usr/sbin/pmc";
	if (access(pmc, X_OK) != 0)
		return unavailable("unavailable: %s: %s (linuxptp is not installed)", pmc, strerror(errno));
	char *out = malloc(ANSWER_MAX), why[600];
	if (!out)
		return json_string("unavailable: out of memory");
	char *const argv[] = {(char *)pmc, "-u", "-b", "0", "-t", "1", "GET TIME_STATUS_NP", NULL};
	int rc = answer_of(argv, out, why, sizeof why);
	json_t *v = NULL;
	const char *offset = rc == 0 ? strstr(out, "master_offset") : NULL;
	if (offset) {
		long long master = strtoll(offset + 13, NULL, 10);
		const char *gm = strstr(out, "gmPresent");
		const char *id = strstr(out, "gmIdentity");
		char identity[64] = "";
		if (id)
			sscanf(id + 10, " %63s", identity);
		v = json_pack("{s:I, s:b, s:s}", "master_offset_ns", (json_int_t)master, "gm_present",
			      gm && strncmp(gm + 9 + strspn(gm + 9, " \t"), "true", 4) == 0, "gm_identity", identity);
	} else {
		v = unavailable("unavailable: pmc GET TIME_STATUS_NP: %s%s", rc == 0 ? "no answer from ptp4l" : why,
				" (is ptp4l running?)");
	}
	free(out);
	return v;
}

/* constant_tsc, nonstop_tsc and tsc_reliable from /proc/cpuinfo's first
 * flags line. */
static json_t *tsc_flags(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return unavailable("unavailable: /proc/cpuinfo: %s", strerror(errno));
	char line[8192];
	json_t *v = NULL;
	while (!v && fgets(line, sizeof line, f))
		if (strncmp(line, "flags", 5) == 0) {
			static const char *const names[] = {"constant_tsc", "nonstop_tsc", "tsc_reliable"};
			v = json_object();
			for (int i = 0; i < 3; i++) {
				char word[32];
				snprintf(word, sizeof word, " %s", names[i]);
				const char *at = strstr(line, word);
				size_t n = strlen(word);
				json_object_set_new(v, names[i], json_boolean(at && (at[n] == ' ' || at[n] == '\n' || !at[n])));
			}
		}
	fclose(f);
	return v ? v : json_string("unavailable: /proc/cpuinfo has no flags line (not an x86 CPU)");
}

static json_t *clocksource(void)
{
	const char *path = "/sys/devices/system/clocksource/clocksource0/current_clocksource";
	FILE *f = fopen(path, "re");
	char line[128];
	if (!f)
		return unavailable("unavailable: %s: %s", path, strerror(errno));
	json_t *v = fgets(line, sizeof line, f) ? json_stringn(line, strcspn(line, "\n")) : json_string("");
	fclose(f);
	return v;
}

json_t *ev_clocks_snapshot(void)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o}", "kernel", kernel_view(), "chrony", chrony_view(), "ptp",
			 ptp_view(), "clocksource", clocksource(), "tsc", tsc_flags());
}
