// SPDX-License-Identifier: GPL-2.0-or-later
/* The feed source: line parser, and the source over a file, FIFO, socket. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cmd/common/log.h"
#include "linux/feed.h"
#include "linux/source.h"

static int parse(const char *s, struct feed_sample *r)
{
	return feed_parse_line(s, strlen(s), r);
}

static void test_parse_good(void **state)
{
	struct feed_sample s;

	assert_int_equal(parse("1234 0x7f0012345678", &s), 0);
	assert_int_equal(s.pid, 1234);
	assert_int_equal(s.vaddr, 0x7f0012345678ULL);
	assert_int_equal(s.nid, -1);
	assert_false(s.has_time);
	assert_int_equal(parse("  1 4096 2 99\r", &s), 0);
	assert_int_equal(s.vaddr, 4096);
	assert_int_equal(s.nid, 2);
	assert_true(s.has_time);
	assert_int_equal(s.time_ms, 99);
	assert_int_equal(parse("1\t0XABC\t-1\t5", &s), 0);
	assert_int_equal(s.vaddr, 0xabc);
	assert_int_equal(s.nid, -1);
	assert_int_equal(s.time_ms, 5);
	assert_int_equal(parse("", &s), 1);
	assert_int_equal(parse("   ", &s), 1);
	assert_int_equal(parse("# pid vaddr", &s), 1);
}

static void test_parse_bad(void **state)
{
	static const char *const bad[] = {
		"1234", "x 0x10", "0 0x10", "-1 0x10", "1234 0x", "1234 0xg",
		"1234 12a", "1234 0x10 node1", "1234 0x10 1024", "1234 0x10 1 2 3",
		"1234 0x10 -2", "1234 0x10 1 -5", "99999999 0x10",
		"1234 0x1ffffffffffffffff", "1234 99999999999999999999",
		"1234 0x10 -1x",
	};
	struct feed_sample s;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse(bad[i], &s) != -EINVAL)
			fail_msg("accepted '%s'", bad[i]);
	/* embedded NUL and an overlong line */
	assert_int_equal(feed_parse_line("12\0 0x10", 8, &s), -EINVAL);
	{
		char longl[400];

		memset(longl, ' ', sizeof(longl));
		memcpy(longl, "1 0x10", 6);
		assert_int_equal(feed_parse_line(longl, sizeof(longl), &s), -EINVAL);
	}
}

/* The message of a malformed line names its first bad field. */
static void test_line_problem(void **state)
{
	static const struct { const char *line, *why; } cases[] = {
		{ "x 0x10", "pid: " }, { "0 0x10", "pid: " },
		{ "99999999 0x10", "pid: " }, { "1234", "vaddr: " },
		{ "1234 0xg", "vaddr: " }, { "1234 0x10 1024", "nid: " },
		{ "1234 0x10 -2", "nid: " }, { "1234 0x10 1 -5", "time_ms: " },
		{ "1234 0x10 1 soon", "time_ms: " },
		{ "1234 0x10 1 2 3", "text after time_ms" },
	};
	char longl[400];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *why = feed_line_problem(cases[i].line, strlen(cases[i].line));

		if (!why || strncmp(why, cases[i].why, strlen(cases[i].why)))
			fail_msg("'%s': '%s', want '%s...'", cases[i].line,
				 why ? why : "(none)", cases[i].why);
	}
	assert_null(feed_line_problem("1234 0x10 1 5", 13));
	assert_null(feed_line_problem("# a comment", 11));
	memset(longl, ' ', sizeof(longl));
	memcpy(longl, "1 0x10", 6);
	assert_string_equal(feed_line_problem(longl, sizeof(longl)), "longer than 256 characters");
	(void)state;
}

struct got {
	struct pl_sample r[16];
	int n;
	int logs;
};

static int on_samples(void *arg, const struct pl_sample *r, size_t n)
{
	struct got *g = arg;

	for (size_t i = 0; i < n; i++) {
		if (g->n < 16)
			g->r[g->n] = r[i];
		g->n++;
	}
	return 0;
}

/* What a test opens the feed with: its path and where it logs. */
struct src_cfg {
	const char *feed_path;
	src_log_fn log;
	void *log_arg;
	uint32_t max_reports;
};

static int feed_open(const struct src_cfg *c, void **ret, char *err, size_t len)
{
	struct src_env env = {
		.log = c->log, .log_arg = c->log_arg, .max_reports = c->max_reports,
	};
	struct feed_cfg fc;

	snprintf(fc.path, sizeof(fc.path), "%s", c->feed_path);
	return src_feed.ops->open(&env, &fc, ret, err, len);
}

static int poll_into(void *priv, uint64_t now, struct got *g)
{
	const struct src_sink sink = { .samples = on_samples, .sink_arg = g };

	return src_feed.ops->poll(priv, now, &sink);
}

static void on_log(void *arg, int level, const char *msg)
{
	struct got *g = arg;

	g->logs++;
	assert_non_null(strstr(msg, "malformed line"));
}

static void test_file_follow(void **state)
{
	char dir[] = "/tmp/pghot-feed-XXXXXX", path[256];
	struct got g = { 0 };
	struct src_cfg cfg = { .feed_path = path, .log = on_log, .log_arg = &g };
	struct src_stats st;
	void *priv = NULL;
	char err[256];
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/feed", dir);
	f = fopen(path, "w");
	fputs("7 0x1234\nnot a line\n8 8192 1 50\n9 0x30", f); /* partial last */
	fflush(f);
	assert_int_equal(feed_open(&cfg, &priv, err, sizeof(err)), 0);
	assert_int_equal(src_feed.ops->fd(priv), -1);
	assert_int_equal(poll_into(priv, 100, &g), 2);
	assert_int_equal(g.r[0].pid, 7);
	assert_int_equal(g.r[0].vaddr, 0x1234);
	assert_int_equal(g.r[0].page_nid, PGHOT_NID_UNKNOWN);
	assert_int_equal(g.r[0].time_ms, 100);
	assert_int_equal(g.r[1].nid, 1);
	assert_int_equal(g.r[1].time_ms, 50);
	assert_int_equal(g.logs, 1);
	/* the rest of the partial line arrives: followed */
	fputs("00\n", f);
	fflush(f);
	assert_int_equal(poll_into(priv, 200, &g), 1);
	assert_int_equal(g.r[2].pid, 9);
	assert_int_equal(g.r[2].vaddr, 0x3000);
	src_feed.ops->stats(priv, &st);
	assert_int_equal(st.reports, 3);
	assert_int_equal(st.malformed, 1);
	assert_int_equal(st.bytes_reported, 0);	/* samples, not ranges */
	fclose(f);
	src_feed.ops->close(priv);
	unlink(path);
	rmdir(dir);
}

/* A malformed line reaches the log escaped (by the log sink, log_msg():
 * esc_bytes()): nothing a feed writes can move the terminal or forge a log
 * line. */
static void test_malformed_log_printable(void **state)
{
	char dir[] = "/tmp/pghot-feed-XXXXXX", path[256], logpath[256];
	char logtext[1024] = "";
	struct got g = { 0 };
	struct src_cfg cfg = { .feed_path = path, .log = log_cb };
	void *priv = NULL;
	char err[256];
	FILE *f;
	int saved;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/feed", dir);
	snprintf(logpath, sizeof(logpath), "%s/log", dir);
	f = fopen(path, "w");
	fputs("1 \x1b[31mred\r\x7f\x01\xff\n", f);
	fclose(f);
	log_init("test", LOG_INFO);
	fflush(stderr);
	saved = dup(2);
	f = fopen(logpath, "w");
	dup2(fileno(f), 2);
	assert_int_equal(feed_open(&cfg, &priv, err, sizeof(err)), 0);
	poll_into(priv, 100, &g);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fclose(f);
	f = fopen(logpath, "r");
	assert_non_null(fgets(logtext, sizeof(logtext), f));
	fclose(f);
	assert_non_null(strstr(logtext, "malformed line 1 '1 \\x1b[31mred\\x0d\\x7f\\x01\\xff', ignoring"));
	src_feed.ops->close(priv);
	unlink(path);
	unlink(logpath);
	rmdir(dir);
}

static void keep_msg(void *arg, int level, const char *msg)
{
	snprintf(arg, 256, "%s", msg);
}

/* A NUL byte in a line would end the text shown before the fault: the
 * message names it. */
static void test_malformed_nul(void **state)
{
	char dir[] = "/tmp/pghot-feed-XXXXXX", path[256], msg[256] = "";
	struct got g = { 0 };
	struct src_cfg cfg = { .feed_path = path, .log = keep_msg, .log_arg = msg };
	void *priv = NULL;
	char err[256];
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/feed", dir);
	f = fopen(path, "w");
	fwrite("11 4096\0junk\n", 1, 13, f);
	fclose(f);
	assert_int_equal(feed_open(&cfg, &priv, err, sizeof(err)), 0);
	assert_int_equal(poll_into(priv, 100, &g), 0);
	assert_non_null(strstr(msg, "malformed line 1 '11 4096' and a NUL byte, ignoring"));
	src_feed.ops->close(priv);
	unlink(path);
	rmdir(dir);
}

static void test_fifo(void **state)
{
	char dir[] = "/tmp/pghot-feed-XXXXXX", path[256];
	struct got g = { 0 };
	struct src_cfg cfg = { .feed_path = path };
	void *priv = NULL;
	char err[256];
	int w;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(feed_open(&cfg, &priv, err, sizeof(err)), 0);
	assert_true(src_feed.ops->fd(priv) >= 0);
	w = open(path, O_WRONLY);
	assert_true(w >= 0);
	assert_int_equal(write(w, "5 0x5000\n", 9), 9);
	close(w); /* a writer leaving is not the end */
	assert_int_equal(poll_into(priv, 1, &g), 1);
	w = open(path, O_WRONLY);
	assert_int_equal(write(w, "6 0x6000\n", 9), 9);
	close(w);
	assert_int_equal(poll_into(priv, 2, &g), 1);
	assert_int_equal(g.r[1].pid, 6);
	src_feed.ops->close(priv);
	unlink(path);
	rmdir(dir);
}

/* A writer that leaves without a final newline: its last line is a line,
 * as for a socket client, not the start of the next writer's first line. */
static void test_fifo_partial_last_line(void **state)
{
	char dir[] = "/tmp/pghot-feed-XXXXXX", path[256];
	struct got g = { 0 };
	struct src_cfg cfg = { .feed_path = path };
	struct src_stats st;
	void *priv = NULL;
	char err[256];
	int w;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(feed_open(&cfg, &priv, err, sizeof(err)), 0);
	for (int k = 0; k < 3; k++) {
		char line[32];
		int n = snprintf(line, sizeof(line), "%d 0x%d000", 5 + k, 5 + k);

		w = open(path, O_WRONLY);
		assert_true(w >= 0);
		assert_int_equal(write(w, line, (size_t)n), n);
		close(w);
		poll_into(priv, 1, &g);
		poll_into(priv, 2, &g);
		assert_int_equal(g.n, k + 1);
		assert_int_equal(g.r[k].pid, 5 + k);
	}
	/* no writer: nothing to read, no busy wake-up */
	{
		struct pollfd p = { .fd = src_feed.ops->fd(priv), .events = POLLIN };

		assert_int_equal(poll(&p, 1, 0), 0);
	}
	src_feed.ops->stats(priv, &st);
	assert_int_equal(st.malformed, 0);
	src_feed.ops->close(priv);
	unlink(path);
	rmdir(dir);
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	strcpy(sa.sun_path, path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

static void test_socket_clients(void **state)
{
	char dir[] = "/tmp/pghot-feed-XXXXXX", path[256];
	struct got g = { 0 };
	struct src_cfg cfg = { .feed_path = path };
	void *priv = NULL;
	char err[256];
	int a, b;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sock", dir);
	assert_int_equal(feed_open(&cfg, &priv, err, sizeof(err)), 0);
	a = connect_to(path);
	b = connect_to(path);
	poll_into(priv, 1, &g); /* accept */
	assert_int_equal(write(a, "1 0x1000\n1 0x", 13), 13);
	assert_int_equal(write(b, "2 0x2000\n", 9), 9);
	for (int i = 0; i < 3; i++)
		poll_into(priv, 2, &g);
	assert_int_equal(g.n, 2);
	assert_int_equal(write(a, "2000\n", 5), 5);
	close(a);
	close(b);
	for (int i = 0; i < 3; i++)
		poll_into(priv, 3, &g);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.r[2].vaddr, 0x2000);
	src_feed.ops->close(priv);
	assert_int_equal(access(path, F_OK), -1); /* socket removed */
	rmdir(dir);
}


static void write_samples(FILE *f, int first, int n)
{
	for (int i = first; i < first + n; i++)
		fprintf(f, "7 0x%x\n", 0x100000 + i * 4096);
	fflush(f);
}

/* max_reports per poll: the rest waits for the next polls, nothing is
 * dropped, and interval_ms() is 0 while some waits. */
static void test_file_backlog(void **state)
{
	char dir[] = "/tmp/pghot-feed-XXXXXX", path[256];
	struct got g = { 0 };
	struct src_cfg cfg = { .feed_path = path, .max_reports = 1000 };
	void *priv = NULL;
	char err[256];
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/feed", dir);
	f = fopen(path, "w");
	write_samples(f, 0, 2500);
	assert_int_equal(feed_open(&cfg, &priv, err, sizeof(err)), 0);
	assert_int_equal(poll_into(priv, 100, &g), 1000);
	assert_int_equal(src_feed.ops->interval_ms(priv), 0);
	assert_int_equal(poll_into(priv, 101, &g), 1000);
	assert_int_equal(poll_into(priv, 102, &g), 500);
	assert_true(src_feed.ops->interval_ms(priv) > 0);
	assert_int_equal(poll_into(priv, 103, &g), 0);
	write_samples(f, 2500, 3);
	assert_int_equal(poll_into(priv, 104, &g), 3);
	assert_int_equal(g.n, 2503);
	fclose(f);
	src_feed.ops->close(priv);
	unlink(path);
	rmdir(dir);
}

static void test_fifo_backlog(void **state)
{
	char dir[] = "/tmp/pghot-feed-XXXXXX", path[256];
	struct got g = { 0 };
	struct src_cfg cfg = { .feed_path = path, .max_reports = 1000 };
	void *priv = NULL;
	char err[256];
	FILE *f;
	int total = 0, polls = 0;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(feed_open(&cfg, &priv, err, sizeof(err)), 0);
	f = fopen(path, "w");
	write_samples(f, 0, 2500);	/* 35 KB: fits the pipe */
	fclose(f);			/* the writer leaves */
	for (int r; (r = poll_into(priv, 100, &g)) > 0; polls++) {
		assert_true(r <= 1000);
		total += r;
	}
	assert_int_equal(total, 2500);
	assert_int_equal(polls, 3);
	src_feed.ops->close(priv);
	unlink(path);
	rmdir(dir);
}

/* Rotation: the path is renamed away and a new file made there: the rest
 * of the old one, then the new one from its start. */
static void test_file_rotation(void **state)
{
	char dir[] = "/tmp/pghot-feed-XXXXXX", path[256], old[300];
	struct got g = { 0 };
	struct src_cfg cfg = { .feed_path = path };
	void *priv = NULL;
	char err[256];
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/feed", dir);
	snprintf(old, sizeof(old), "%s/feed.1", dir);
	f = fopen(path, "w");
	write_samples(f, 0, 3);
	assert_int_equal(feed_open(&cfg, &priv, err, sizeof(err)), 0);
	assert_int_equal(poll_into(priv, 100, &g), 3);
	write_samples(f, 3, 2);
	fputs("7 0x9", f);	/* a last line without newline */
	fclose(f);
	assert_int_equal(rename(path, old), 0);
	f = fopen(path, "w");
	write_samples(f, 10, 4);
	fclose(f);
	/* old rest (2 + the unfinished line), then the 4 new */
	assert_int_equal(poll_into(priv, 101, &g), 7);
	assert_int_equal(g.r[5].vaddr, 9);	/* "7 0x9" */
	assert_int_equal(g.r[6].vaddr, 0x100000 + 10 * 4096);
	assert_int_equal(poll_into(priv, 102, &g), 0);
	src_feed.ops->close(priv);
	unlink(path);
	unlink(old);
	rmdir(dir);
}

static void test_open_errors(void **state)
{
	struct src_cfg cfg = { .feed_path = "" };
	void *priv = NULL;
	char err[256];

	assert_int_equal(feed_open(&cfg, &priv, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "set [feed] path"));
	cfg.feed_path = "/nonexistent-dir/x/feed.sock";
	assert_true(feed_open(&cfg, &priv, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "cannot listen"));
	cfg.feed_path = "/tmp";
	assert_int_equal(feed_open(&cfg, &priv, err, sizeof(err)), -EINVAL);
	src_feed.ops->close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_line_problem),
		cmocka_unit_test(test_file_follow),
		cmocka_unit_test(test_malformed_log_printable),
		cmocka_unit_test(test_malformed_nul),
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_fifo_partial_last_line),
		cmocka_unit_test(test_socket_clients),
		cmocka_unit_test(test_file_backlog),
		cmocka_unit_test(test_fifo_backlog),
		cmocka_unit_test(test_file_rotation),
		cmocka_unit_test(test_open_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
