/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"
#include "lib/archive/tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/grow.h"
#include "lib/core/path.h"

struct walk {
	struct ev_tree *tree;
	size_t cap;
	ev_finding_fn on_finding;
	void *ctx;
	struct ev_error *err;
};

static enum ev_member_type type_of(mode_t mode)
{
	if (S_ISREG(mode))
		return EV_MEMBER_FILE;
	if (S_ISDIR(mode))
		return EV_MEMBER_DIR;
	if (S_ISLNK(mode))
		return EV_MEMBER_SYMLINK;
	if (S_ISFIFO(mode))
		return EV_MEMBER_FIFO;
	if (S_ISSOCK(mode))
		return EV_MEMBER_SOCKET;
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return EV_MEMBER_DEVICE;
	return EV_MEMBER_OTHER;
}

static ev_status add_entry(struct walk *w, char *path, const struct stat *sb)
{
	struct ev_tree *t = w->tree;
	if (ev_grow_array(&t->entries, &w->cap, t->count + 1, sizeof *t->entries) != 0) {
		free(path);
		return ev_error_set(w->err, EV_ERROR, "out of memory while walking the tree");
	}
	struct ev_tree_entry *e = &t->entries[t->count++];
	memset(e, 0, sizeof *e);
	e->m.path = path;
	e->m.type = type_of(sb->st_mode);
	e->m.mode = sb->st_mode & 07777;
	e->m.size = e->m.type == EV_MEMBER_FILE ? (uint64_t)sb->st_size : 0;
	e->name_problem = ev_path_problem(path, strlen(path));
	e->dev = sb->st_dev;
	e->ino = sb->st_ino;
	e->mtime = sb->st_mtim;
	e->ctime = sb->st_ctim;
	if (e->m.type == EV_MEMBER_FILE)
		t->file_bytes += e->m.size;
	return EV_OK;
}

static void report(struct walk *w, const char *path, const char *check, const char *message,
		   const char *found)
{
	ev_finding_emit(w->on_finding, w->ctx, path, check, message, NULL, found);
}

/* Walk the directory open as dirfd, whose member path is prefix ("" for the
 * root). Takes ownership of dirfd. */
static ev_status walk_dir(struct walk *w, int dirfd, const char *prefix, int depth)
{
	DIR *d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		report(w, *prefix ? prefix : ".", "unreadable", "cannot read directory",
		       strerror(errno));
		return EV_OK;
	}
	ev_status st = EV_OK;
	for (;;) {
		errno = 0;
		struct dirent *de = readdir(d);
		if (!de) {
			if (errno != 0)
				report(w, *prefix ? prefix : ".", "unreadable",
				       "cannot read directory", strerror(errno));
			break;
		}
		const char *name = de->d_name;
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			continue;
		size_t plen = strlen(prefix), nlen = strlen(name);
		char *path = malloc(plen + nlen + 2);
		if (!path) {
			st = ev_error_set(w->err, EV_ERROR, "out of memory while walking the tree");
			break;
		}
		if (plen) {
			memcpy(path, prefix, plen);
			path[plen] = '/';
			memcpy(path + plen + 1, name, nlen + 1);
		} else {
			memcpy(path, name, nlen + 1);
		}
		struct stat sb;
		if (fstatat(dirfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
			report(w, path, "unreadable", "cannot stat", strerror(errno));
			free(path);
			continue;
		}
		if ((st = add_entry(w, path, &sb)) != EV_OK)
			break;
		if (!S_ISDIR(sb.st_mode))
			continue;
		if (depth + 1 >= EV_TREE_MAX_DEPTH) {
			report(w, path, "too-deep", "directory nested deeper than 256 levels", NULL);
			continue;
		}
		int child = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (child < 0) {
			report(w, path, "unreadable", "cannot open directory", strerror(errno));
			continue;
		}
		/* The path string is owned by the entry array, which may move on
		 * realloc: walk with a private copy of the prefix. */
		char *sub = strdup(path);
		if (!sub) {
			close(child);
			st = ev_error_set(w->err, EV_ERROR, "out of memory while walking the tree");
			break;
		}
		st = walk_dir(w, child, sub, depth + 1);
		free(sub);
		if (st != EV_OK)
			break;
	}
	closedir(d);
	return st;
}

static int entry_order(const void *a, const void *b)
{
	const struct ev_tree_entry *x = a, *y = b;
	return strcmp(x->m.path, y->m.path);
}

ev_status ev_tree_scan(const char *root, struct ev_tree *tree, ev_finding_fn on_finding,
		       void *ctx, struct ev_error *err)
{
	memset(tree, 0, sizeof *tree);
	tree->rootfd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tree->rootfd < 0) {
		int e = errno;
		if (e == ENOTDIR || e == ELOOP)
			return ev_error_set(err, EV_USAGE, "%s: not a directory (symbolic links are "
					    "not followed)", root);
		return ev_error_errno(err, e, "%s: cannot open directory", root);
	}
	struct stat sb;
	if (fstat(tree->rootfd, &sb) != 0) {
		ev_status st = ev_error_errno(err, errno, "%s: cannot stat", root);
		ev_tree_free(tree);
		return st;
	}
	tree->root_dev = sb.st_dev;
	tree->root_ino = sb.st_ino;
	int walkfd = dup(tree->rootfd);
	if (walkfd < 0) {
		ev_status st = ev_error_errno(err, errno, "%s: cannot duplicate descriptor", root);
		ev_tree_free(tree);
		return st;
	}
	struct walk w = {.tree = tree, .on_finding = on_finding, .ctx = ctx, .err = err};
	ev_status st = walk_dir(&w, walkfd, "", 0);
	if (st != EV_OK) {
		ev_tree_free(tree);
		return st;
	}
	if (tree->count > 1) /* qsort must not be handed the NULL of an empty tree */
		qsort(tree->entries, tree->count, sizeof tree->entries[0], entry_order);
	return EV_OK;
}

void ev_tree_free(struct ev_tree *tree)
{
	if (!tree)
		return;
	for (size_t i = 0; i < tree->count; i++)
		free(tree->entries[i].m.path);
	free(tree->entries);
	if (tree->rootfd >= 0)
		close(tree->rootfd);
	memset(tree, 0, sizeof *tree);
	tree->rootfd = -1;
}

int ev_tree_open_parent(const struct ev_tree *tree, const char *path, const char **base)
{
	int dirfd = dup(tree->rootfd);
	const char *p = path;
	char component[EV_PATH_COMPONENT_MAX + 1];
	if (dirfd < 0)
		return -1;
	for (;;) {
		const char *slash = strchr(p, '/');
		if (!slash)
			break;
		size_t n = (size_t)(slash - p);
		if (n > EV_PATH_COMPONENT_MAX) {
			close(dirfd);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(component, p, n);
		component[n] = '\0';
		int next = openat(dirfd, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int saved = errno;
		close(dirfd);
		if (next < 0) {
			errno = saved;
			return -1;
		}
		dirfd = next;
		p = slash + 1;
	}
	*base = p;
	return dirfd;
}

int ev_tree_open_member(const struct ev_tree *tree, const char *path)
{
	const char *base;
	int dirfd = ev_tree_open_parent(tree, path, &base);
	if (dirfd < 0)
		return -1;
	/* O_NONBLOCK: a FIFO swapped in after the walk must not hang the open. */
	int fd = openat(dirfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	int saved = errno;
	close(dirfd);
	errno = saved;
	return fd;
}
