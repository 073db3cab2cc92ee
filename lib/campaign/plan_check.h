/* SPDX-License-Identifier: Apache-2.0 */
/* plan_check: a campaign plan ("evidence-plan/1", doc/formats.md
 * "Campaign plan") held to every rule before anything runs, as capture
 * runs it, and the order of its runs. The file is read by lib/campaign/
 * plan (ev_plan_load, what audit reads of a plan too); this checks what
 * it read.
 *
 * The plan names cells (a sender and its peer, each with argv, launcher,
 * environment, CPU and declared outputs), arms (phases run one after the
 * other, each optionally holding a PM QoS value), counts, repeats, the
 * order, the namespace topology, observers, the binaries' pins and the
 * repositories their sources come from. Unknown
 * keys, unknown {variables} in argv, outputs outside the run directory
 * and CPUs out of range are refused at load, before anything runs.
 *
 * A loaded plan owns its JSON document; every string points into it.
 * plan_check.c loads the top level, arms, cells and sources, plan_side.c
 * each side, plan_observers.c the observers (sharing plan_check_parts.h).
 */
#ifndef EV_PLAN_CHECK_H
#define EV_PLAN_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/campaign/plan.h"
#include "lib/core/sha256.h"
#include "lib/core/status.h"

#define EV_PLAN_MAX_CELLS 64
#define EV_PLAN_MAX_ARMS 16
#define EV_PLAN_MAX_RUNS 4096
#define EV_PLAN_MAX_CPUS 1024
#define EV_PLAN_MAX_ARGS 256
#define EV_PLAN_RUN_NAME_MAX 160

enum ev_plan_role { EV_PLAN_SENDER, EV_PLAN_PEER };

/* How the peer is ended once the sender is done. The sender ends the run
 * itself: it exits within timeout_seconds or is killed. */
enum ev_plan_stop_how {
	EV_PLAN_STOP_EXIT,   /* it exits by itself */
	EV_PLAN_STOP_STDIN,  /* capture writes line and a newline to its stdin (a pipe) */
	EV_PLAN_STOP_SIGNAL, /* capture sends signal to its process group */
};

struct ev_plan_stop {
	enum ev_plan_stop_how how;
	const char *line;   /* EV_PLAN_STOP_STDIN */
	int signal;         /* EV_PLAN_STOP_SIGNAL */
	uint64_t grace_ms;  /* from the request (or the sender's end) to SIGKILL */
};

#define EV_PLAN_STOP_GRACE_MS 10000
#define EV_PLAN_STOP_LINE_MAX 256
#define EV_PLAN_WORK_SENDER "sender"
#define EV_PLAN_WORK_PEER "peer"

/* perf record beside a side, for the runs whose repeat is at most runs
 * (0: every run): profiling perturbs latency, so the others stay the
 * measurement. */
struct ev_plan_profile {
	int on;
	const char *event;        /* "cycles" (falls back to cpu-clock without a PMU) or as named */
	uint64_t frequency;       /* -F (0: period is used) */
	uint64_t period;          /* -c */
	int call_graph;           /* -g */
	uint64_t runs;
};

struct ev_plan_side {
	const char *role;        /* "sender" or "peer" */
	json_t *argv;            /* array of strings, {variables} not yet expanded */
	json_t *launcher;        /* array of strings, or NULL */
	json_t *env;             /* object of strings, or NULL */
	json_t *outputs;         /* object: name -> path relative to the run directory, or NULL */
	int cpu;
	uint64_t ready_port;     /* peer: wait for a TCP listener on this port (0: none) */
	uint64_t ready_delay_ms; /* peer: or wait this long */
	struct ev_plan_stop stop;   /* peer: how it ends once the sender exited */
	const char *work;        /* its working directory inside the run directory */
	json_t *inputs;          /* object: path inside work -> absolute pinned file, or NULL */
	const char *user, *group; /* whom it runs as (NULL: whoever runs capture) */
	struct ev_plan_profile profile;
};

struct ev_plan_cell {
	const char *name, *description;
	struct ev_plan_side side[2]; /* EV_PLAN_SENDER, EV_PLAN_PEER */
};

#define EV_PLAN_MAX_OBSERVERS 16

/* A program run in a side's network namespace before, during (every
 * interval_ms) and after a run, its output kept and hashed. */
struct ev_plan_observer {
	const char *name;
	json_t *argv;             /* strings; {iface}, {side}, {pid} expanded per side */
	int sides[2];             /* EV_PLAN_SENDER, EV_PLAN_PEER: observed */
	int before, during, after;
	const char *format;       /* "text" or "onload" (audit campaign reads it) */
	int optional;             /* "optional": true: a run it did not observe is a gap, not a failure */
};

struct ev_plan_arm {
	const char *name;
	int pm_qos;               /* hold /dev/cpu_dma_latency for the arm */
	int32_t cpu_dma_latency;  /* the value held, microseconds */
};

struct ev_campaign_plan {
	json_t *doc;
	char sha256[EV_SHA256_HEX_LEN + 1]; /* of the plan file's bytes */
	const char *name;
	uint64_t warmups, measured, repeats, port, timeout_s, interval_ms;
	int balanced;             /* order "balanced" (else "listed") */
	int netns;                /* namespaces "veth" or "link": each side in a namespace of its own */
	int link;                 /* namespaces "link": link_if moved in, not a veth made */
	const char *namespaces;   /* "none", "veth" or "link", as the plan says */
	const char *link_if[2];   /* EV_PLAN_SENDER, EV_PLAN_PEER: the interfaces of capture's namespace */
	uint64_t link_mtu;        /* set on both while they are out (0: keep theirs) */
	int stop_on_failure;
	int controller_cpus[EV_PLAN_MAX_CPUS];
	size_t ncontroller;
	int controller_default;   /* none given: the lowest CPU no side uses */
	int controller_shares;    /* "controller_shares": true: a controller CPU may be a side's */
	int shared_cpus[EV_PLAN_MAX_CPUS]; /* the controller's CPUs that are also a side's */
	size_t nshared;
	json_t *pins;             /* object: absolute path -> SHA-256 hex (may be empty) */
	json_t *sources;          /* object: absolute program path -> absolute repository path, or NULL */
	const char *perf;         /* perf's absolute path, pinned (required when a side is profiled) */
	const char *user, *group; /* the sides' default credentials, or NULL */
	struct ev_plan_cell cells[EV_PLAN_MAX_CELLS];
	size_t ncells;
	struct ev_plan_arm arms[EV_PLAN_MAX_ARMS];
	size_t narms;
	struct ev_plan_observer observers[EV_PLAN_MAX_OBSERVERS];
	size_t nobservers;
};

/* One run in the planned order. */
struct ev_plan_run {
	size_t index;             /* 1-based position in the order */
	const struct ev_plan_arm *arm;
	const struct ev_plan_cell *cell;
	unsigned repeat;          /* 1-based, within its arm */
	char name[EV_PLAN_RUN_NAME_MAX]; /* "003-baseline-spin-2": the run directory's name */
};

/* Where the controller ran, for run.json and the receipt: {"cpus",
 * "chosen": "plan" or "default", "shared_with_sides": the CPUs it shared
 * with a measured side (empty unless "controller_shares": true)}. */
json_t *ev_plan_controller_json(const struct ev_campaign_plan *p);

/* Load and check path. @return EV_OK; EV_REFUSED (err names the key or
 * value and what was expected) or EV_ERROR. Free with ev_campaign_plan_free. */
ev_status ev_campaign_plan_load(const char *path, struct ev_campaign_plan *p, struct ev_error *err);
void ev_campaign_plan_free(struct ev_campaign_plan *p);

/* Is path a program or launcher of some cell (argv[0] of a side or of its
 * launcher)? 1 yes; 0: a pinned file of another kind (a config, a
 * launcher's profile, a helper's input). */
int ev_plan_runs_program(const struct ev_campaign_plan *p, const char *path);

/* The runs in order: per arm, `repeats` passes over the cells, forward,
 * then (balanced) backward, forward, ... (A B C C B A ...), or forward
 * each time (listed). @return how many (at most cap). */
size_t ev_plan_schedule(const struct ev_campaign_plan *p, struct ev_plan_run *runs, size_t cap);

/* An observer's argv for one side, malloc'd, NULL-terminated: {iface}
 * the side's interface, {side} "sender" or "peer", {pid} the side's PID.
 * Free with ev_plan_argv_free. @return EV_OK or EV_ERROR. */
ev_status ev_plan_observer_argv(const struct ev_plan_observer *o, const char *iface, int side, long pid,
				     char ***out, struct ev_error *err);

/* Is path the source of some side's input? 1 yes, 0 no. */
int ev_plan_is_input(const struct ev_campaign_plan *p, const char *path);

/* The signal's name without "SIG" ("TERM"), or "?". */
const char *ev_plan_signal_name(int sig);

/* What {variables} stand for in one run. */
struct ev_plan_vars {
	const char *peer_addr, *sender_addr, *run_dir, *cell, *arm;
	uint64_t port, warmups, measured, repeat;
};

/* Expand side's argv (launcher first) into out (malloc'd strings, NULL
 * terminated; free with ev_plan_argv_free). {out:NAME} becomes
 * run_dir/PATH. @return EV_OK or EV_ERROR. */
ev_status ev_plan_expand(const struct ev_plan_side *side, const struct ev_plan_vars *v, char ***out,
		      struct ev_error *err);
void ev_plan_argv_free(char **argv);

/* The path of output NAME of side relative to the run directory, or NULL. */
const char *ev_plan_output(const struct ev_plan_side *side, const char *name);

#endif
