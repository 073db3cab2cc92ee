/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/process/policy.h"

#include "lib/process/interference.h"
#include "lib/process/observe.h"
#include "lib/core/json.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* The first line of a small file, or "unavailable: PATH: reason". */
static json_t *first_line(const char *path)
{
	char line[4096], text[4200];
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(text, sizeof text, "unavailable: %s: %s", path, strerror(errno));
		return json_string(text);
	}
	if (!fgets(line, sizeof line, f))
		line[0] = 0;
	fclose(f);
	line[strcspn(line, "\n")] = 0;
	return json_string(line);
}

/* A whole small text file (at most 64 KiB), or "unavailable: ...". */
static json_t *whole_file(const char *path)
{
	char *bytes = NULL;
	size_t len = 0;
	struct ev_error err;
	ev_error_clear(&err);
	if (ev_file_read_all(path, 65536, &bytes, &len, &err) != EV_OK) {
		char text[EV_ERROR_TEXT_MAX + 16];
		snprintf(text, sizeof text, "unavailable: %s", err.text);
		return json_string(text);
	}
	json_t *v = json_stringn(bytes, len);
	free(bytes);
	return v;
}

/* The active tuned profiles' tuned.conf, by profile name (null when no
 * profile is active or tuned is absent). */
static json_t *tuned_profiles(const char *active)
{
	if (!active || strncmp(active, "unavailable:", 12) == 0 || !*active)
		return json_null();
	json_t *o = json_object();
	char names[512];
	snprintf(names, sizeof names, "%s", active);
	char *save = NULL;
	for (char *name = strtok_r(names, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
		static const char *const dirs[] = {"/etc/tuned", "/usr/lib/tuned"};
		char path[700];
		json_t *conf = NULL;
		for (int d = 0; d < 2 && !conf; d++) {
			snprintf(path, sizeof path, "%s/%s/tuned.conf", dirs[d], name);
			if (strchr(name, '/') == NULL && access(path, F_OK) == 0)
				conf = json_pack("{s:s, s:o}", "path", path, "contents", whole_file(path));
		}
		json_object_set_new(o, name, conf ? conf : json_string("unavailable: no tuned.conf in /etc/tuned or /usr/lib/tuned"));
	}
	return o;
}

/* isolcpus=, nohz_full=, rcu_nocbs=, irqaffinity= of the command line
 * (null when absent). */
static json_t *isolation(const char *cmdline)
{
	static const char *params[] = {"isolcpus", "nohz_full", "rcu_nocbs", "irqaffinity", NULL};
	json_t *o = json_object();
	for (const char **p = params; *p; p++) {
		json_t *v = json_null();
		size_t n = strlen(*p);
		for (const char *at = cmdline; (at = strstr(at, *p)) != NULL; at += n)
			if ((at == cmdline || at[-1] == ' ') && at[n] == '=') {
				json_decref(v);
				v = json_stringn(at + n + 1, strcspn(at + n + 1, " "));
			}
		json_object_set_new(o, *p, v);
	}
	return o;
}

int ev_pmqos_read(int32_t *value)
{
	int fd = open(EV_PMQOS_DEVICE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ssize_t n = read(fd, value, sizeof *value);
	int e = n == (ssize_t)sizeof *value ? 0 : n < 0 ? errno : EIO;
	close(fd);
	return e;
}

int ev_pmqos_probe(void)
{
	int fd = open(EV_PMQOS_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd); /* nothing was written: no request was made */
	return 0;
}

ev_status ev_pmqos_hold(int32_t value, struct ev_pmqos_hold *h, int32_t *effective, struct ev_error *err)
{
	h->fd = open(EV_PMQOS_DEVICE, O_RDWR | O_CLOEXEC);
	h->value = value;
	if (h->fd < 0)
		return ev_error_errno(err, errno, "%s: cannot open to hold %d us", EV_PMQOS_DEVICE, (int)value);
	if (write(h->fd, &value, sizeof value) != (ssize_t)sizeof value) {
		int e = errno;
		close(h->fd);
		h->fd = -1;
		return ev_error_errno(err, e, "%s: cannot request %d us", EV_PMQOS_DEVICE, (int)value);
	}
	int e = ev_pmqos_read(effective);
	if (e) {
		ev_pmqos_release(h);
		return ev_error_errno(err, e, "%s: cannot read the value back", EV_PMQOS_DEVICE);
	}
	return EV_OK;
}

void ev_pmqos_release(struct ev_pmqos_hold *h)
{
	if (h->fd >= 0)
		close(h->fd); /* closing the descriptor withdraws the request */
	h->fd = -1;
}

/* The value of the first "KEY<sep>VALUE" line of path (/proc/cpuinfo's
 * "model name\t: ...", os-release's PRETTY_NAME="..."), quotes and blanks
 * trimmed; "unavailable: ..." when there is none. */
static json_t *keyed_line(const char *path, const char *key, char sep)
{
	FILE *f = fopen(path, "re");
	char line[1024], text[512];
	size_t klen = strlen(key);
	if (!f) {
		snprintf(text, sizeof text, "unavailable: %s: %s", path, strerror(errno));
		return json_string(text);
	}
	while (fgets(line, sizeof line, f)) {
		char *v = line + klen;
		if (strncmp(line, key, klen) != 0)
			continue;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v != sep)
			continue;
		v++;
		while (*v == ' ' || *v == '\t' || *v == '"')
			v++;
		size_t n = strlen(v);
		while (n && (v[n - 1] == '\n' || v[n - 1] == '"' || v[n - 1] == ' '))
			v[--n] = '\0';
		fclose(f);
		return json_string(v);
	}
	fclose(f);
	snprintf(text, sizeof text, "unavailable: %s has no %s", path, key);
	return json_string(text);
}

json_t *ev_policy_snapshot(const int *cpus, size_t n)
{
	json_t *o = json_object();
	json_object_set_new(o, "cpu_model", keyed_line("/proc/cpuinfo", "model name", ':'));
	json_object_set_new(o, "os", keyed_line("/etc/os-release", "PRETTY_NAME", '='));
	json_t *cmdline = first_line("/proc/cmdline");
	json_object_set_new(o, "kernel_cmdline", cmdline);
	json_object_set_new(o, "isolation", isolation(json_string_value(cmdline)));
	struct utsname u;
	if (uname(&u) == 0)
		json_object_set_new(o, "kernel", json_pack("{s:s, s:s, s:s}", "release", u.release, "version",
							   u.version, "machine", u.machine));
	json_t *per_cpu = json_object();
	for (size_t i = 0; i < n; i++) {
		char key[16], path[160];
		snprintf(key, sizeof key, "%d", cpus[i]);
		if (json_object_get(per_cpu, key))
			continue;
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpus[i]);
		json_t *gov = first_line(path);
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_driver", cpus[i]);
		json_t *cpu = json_pack("{s:o, s:o}", "governor", gov, "driver", first_line(path));
		static const char *const more[][2] = {
			{"cpufreq/energy_performance_preference", "energy_performance_preference"},
			{"cpufreq/scaling_min_freq", "scaling_min_freq_khz"},
			{"cpufreq/scaling_max_freq", "scaling_max_freq_khz"},
			{"cpufreq/cpuinfo_min_freq", "cpuinfo_min_freq_khz"},
			{"cpufreq/cpuinfo_max_freq", "cpuinfo_max_freq_khz"},
			{"topology/thread_siblings_list", "smt_siblings"},
		};
		for (size_t m = 0; m < sizeof more / sizeof *more; m++) {
			snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/%s", cpus[i], more[m][0]);
			json_object_set_new(cpu, more[m][1], first_line(path));
		}
		json_object_set_new(per_cpu, key, cpu);
	}
	json_object_set_new(o, "cpus", per_cpu);
	const char *no_turbo = "/sys/devices/system/cpu/intel_pstate/no_turbo";
	json_object_set_new(o, "turbo",
			    access(no_turbo, F_OK) == 0
				    ? json_pack("{s:o}", "intel_pstate_no_turbo", first_line(no_turbo))
				    : json_pack("{s:o}", "cpufreq_boost",
						first_line("/sys/devices/system/cpu/cpufreq/boost")));
	json_t *profile = first_line("/etc/tuned/active_profile");
	json_object_set_new(o, "tuned_profile", profile);
	json_object_set_new(o, "tuned_profiles", tuned_profiles(json_string_value(profile)));
	if (access("/sys/devices/system/cpu/intel_pstate", F_OK) == 0)
		json_object_set_new(o, "intel_pstate",
				    json_pack("{s:o, s:o, s:o}", "status",
					      first_line("/sys/devices/system/cpu/intel_pstate/status"), "min_perf_pct",
					      first_line("/sys/devices/system/cpu/intel_pstate/min_perf_pct"), "max_perf_pct",
					      first_line("/sys/devices/system/cpu/intel_pstate/max_perf_pct")));
	else
		json_object_set_new(o, "intel_pstate", json_null());
	json_object_set_new(o, "smt", json_pack("{s:o, s:o}", "control", first_line("/sys/devices/system/cpu/smt/control"),
						 "active", first_line("/sys/devices/system/cpu/smt/active")));
	json_object_set_new(o, "interrupts", ev_observe_interrupts(cpus, n, 1));
	json_object_set_new(o, "numa_balancing", first_line("/proc/sys/kernel/numa_balancing"));
	json_object_set_new(o, "watchdog_cpumask", first_line("/proc/sys/kernel/watchdog_cpumask"));
	json_object_set_new(o, "nmi_watchdog", first_line("/proc/sys/kernel/nmi_watchdog"));
	json_object_set_new(o, "clocksource",
			    first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource"));
	json_object_set_new(o, "transparent_hugepage",
			    first_line("/sys/kernel/mm/transparent_hugepage/enabled"));
	int32_t v;
	int e = ev_pmqos_read(&v);
	if (e) {
		char text[160];
		snprintf(text, sizeof text, "unavailable: %s: %s", EV_PMQOS_DEVICE, strerror(e));
		json_object_set_new(o, "cpu_dma_latency_us", json_string(text));
	} else {
		json_object_set_new(o, "cpu_dma_latency_us", json_integer(v));
	}
	ev_interference_platform(o);
	return o;
}
