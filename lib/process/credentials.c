/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/process/credentials.h"

#include <errno.h>
#include <limits.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The directory an output is written in, relative to the run directory
 * ("" for the run directory itself). */
static void parent_of(const char *path, char *out, size_t cap)
{
	const char *slash = strrchr(path, '/');
	snprintf(out, cap, "%.*s", slash ? (int)(slash - path) : 0, path);
}

static ev_status resolve_one(const struct ev_campaign_plan *p, const struct ev_plan_cell *cell, const struct ev_plan_side *s,
			     struct ev_side_cred *c, struct ev_error *err)
{
	uid_t me = geteuid();
	memset(c, 0, sizeof *c);
	c->uid = me;
	c->gid = getegid();
	if (!s->user) {
		if (me == 0)
			return ev_error_set(err, EV_REFUSED,
					    "%s: cell %s %s: would run as root: name the user it runs as (\"user\": "
					    "\"NAME\", for one side or for the whole plan), or say \"user\": \"root\" "
					    "if it must", p->name, cell->name, s->role);
		return EV_OK;
	}
	snprintf(c->user, sizeof c->user, "%s", s->user);
	snprintf(c->group, sizeof c->group, "%s", s->group ? s->group : "");
	errno = 0;
	struct passwd *pw = getpwnam(s->user);
	if (!pw)
		return ev_error_set(err, EV_REFUSED, "%s: cell %s %s: user \"%s\": %s", p->name, cell->name, s->role,
				    s->user, errno ? strerror(errno) : "no such user on this host");
	c->uid = pw->pw_uid;
	c->gid = pw->pw_gid;
	snprintf(c->home, sizeof c->home, "%s", pw->pw_dir);
	if (s->group) {
		errno = 0;
		struct group *gr = getgrnam(s->group);
		if (!gr)
			return ev_error_set(err, EV_REFUSED, "%s: cell %s %s: group \"%s\": %s", p->name, cell->name,
					    s->role, s->group, errno ? strerror(errno) : "no such group on this host");
		c->gid = gr->gr_gid;
	}
	c->ngroups = EV_CRED_MAX_GROUPS;
	if (getgrouplist(pw->pw_name, c->gid, c->groups, &c->ngroups) < 0)
		return ev_error_set(err, EV_REFUSED, "%s: cell %s %s: user \"%s\" is in more than %d groups",
				    p->name, cell->name, s->role, s->user, EV_CRED_MAX_GROUPS);
	if (me == 0) {
		c->drop = c->uid != 0 || s->group;
		return EV_OK;
	}
	if (c->uid != me || c->gid != getegid())
		return ev_error_set(err, EV_REFUSED,
				    "%s: cell %s %s: runs as %s%s%s, and capture runs as uid %u: only root can "
				    "start a side as another user or group; run capture as root", p->name, cell->name,
				    s->role, s->user, s->group ? ":" : "", s->group ? s->group : "", (unsigned)me);
	return EV_OK;
}

/* A side that drops to another user writes only in directories capture
 * makes for it and gives it. */
static ev_status check_outputs(const struct ev_campaign_plan *p, const struct ev_plan_cell *cell,
			       const struct ev_side_cred cred[2], struct ev_error *err)
{
	for (int k = 0; k < 2; k++) {
		if (!cred[k].drop)
			continue;
		const struct ev_plan_side *s = &cell->side[k], *o = &cell->side[1 - k];
		const char *name;
		json_t *v;
		json_object_foreach(s->outputs, name, v) {
			char dir[PATH_MAX];
			parent_of(json_string_value(v), dir, sizeof dir);
			if (!dir[0])
				return ev_error_set(err, EV_REFUSED,
						    "%s: cell %s %s: output \"%s\" (%s) would be written in the run directory "
						    "itself, where user %s cannot write: put it in the side's working "
						    "directory (%s/...) or a directory of its own", p->name, cell->name,
						    s->role, name, json_string_value(v), cred[k].user, s->work);
			if (cred[1 - k].uid == cred[k].uid && cred[1 - k].gid == cred[k].gid)
				continue;
			const char *oname;
			json_t *ov;
			json_object_foreach(o->outputs, oname, ov) {
				char odir[PATH_MAX];
				parent_of(json_string_value(ov), odir, sizeof odir);
				if (strcmp(dir, odir) == 0)
					return ev_error_set(err, EV_REFUSED,
							    "%s: cell %s: the sender and the peer run as different users "
							    "and both write outputs in %s/: give each side's outputs a "
							    "directory of its own", p->name, cell->name, dir);
			}
		}
	}
	return EV_OK;
}

ev_status ev_credentials_resolve(const struct ev_campaign_plan *p, struct ev_side_cred cred[][2], struct ev_error *err)
{
	for (size_t i = 0; i < p->ncells; i++) {
		for (int k = 0; k < 2; k++) {
			ev_status st = resolve_one(p, &p->cells[i], &p->cells[i].side[k], &cred[i][k], err);
			if (st != EV_OK)
				return st;
		}
		ev_status st = check_outputs(p, &p->cells[i], cred[i], err);
		if (st != EV_OK)
			return st;
	}
	return EV_OK;
}

json_t *ev_credentials_json(const struct ev_side_cred *c)
{
	json_t *groups = json_array();
	for (int i = 0; i < c->ngroups; i++)
		json_array_append_new(groups, json_integer(c->groups[i]));
	json_t *o = json_pack("{s:o, s:o, s:i, s:i, s:b}", "user", c->user[0] ? json_string(c->user) : json_null(),
			      "group", c->group[0] ? json_string(c->group) : json_null(), "uid", (int)c->uid, "gid",
			      (int)c->gid, "dropped", c->drop);
	if (c->drop)
		json_object_set_new(o, "groups", groups);
	else
		json_decref(groups);
	return o;
}
