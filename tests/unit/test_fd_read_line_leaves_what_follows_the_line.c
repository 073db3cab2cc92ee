/* SPDX-License-Identifier: Apache-2.0 */
/* A peer's line read from a pipe stops at its newline, so the bytes after
 * it (file data) are still there for the next reader; a stream that ends
 * before a newline and a line too long for the buffer are told apart. */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "check.h"
#include "lib/core/input.h"

static int pipe_with(const char *bytes)
{
	int p[2];
	CHECK(pipe(p) == 0);
	CHECK(write(p[1], bytes, strlen(bytes)) == (ssize_t)strlen(bytes));
	close(p[1]);
	return p[0];
}

int main(void)
{
	char line[8], rest[16] = "";

	int fd = pipe_with("have 3\nDATA");
	CHECK_INT_EQ(ev_fd_read_line(fd, line, sizeof line), 0);
	CHECK_STR_EQ(line, "have 3");
	CHECK_INT_EQ((int)read(fd, rest, sizeof rest - 1), 4);
	CHECK_STR_EQ(rest, "DATA");
	close(fd);

	fd = pipe_with("\n");
	CHECK_INT_EQ(ev_fd_read_line(fd, line, sizeof line), 0);
	CHECK_STR_EQ(line, "");
	close(fd);

	fd = pipe_with("cut sh");
	CHECK_INT_EQ(ev_fd_read_line(fd, line, sizeof line), -1);
	close(fd);

	fd = pipe_with("1234567\n"); /* seven bytes and the NUL fit in eight */
	CHECK_INT_EQ(ev_fd_read_line(fd, line, sizeof line), 0);
	CHECK_STR_EQ(line, "1234567");
	close(fd);

	fd = pipe_with("12345678\n");
	CHECK_INT_EQ(ev_fd_read_line(fd, line, sizeof line), -2);
	close(fd);
	return check_exit("test_fd_read_line_leaves_what_follows_the_line");
}
