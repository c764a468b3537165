/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPU time of the calling thread, to charge a piece of work (a
 * move_pages(2) call, a source's poll) with what it cost: the thread's
 * user and system time (CLOCK_THREAD_CPUTIME_ID, the scheduler's runtime
 * in ns), so time spent waiting for the CPU or blocked does not count.
 */
#ifndef PGHOT_LINUX_CPU_TIME_H
#define PGHOT_LINUX_CPU_TIME_H

#include <stdint.h>
#include <time.h>

/* thread_cpu_us() - the calling thread's CPU time so far, microseconds;
 * 0 if the clock cannot be read (it can always be read on Linux; a read
 * that failed once would charge the next piece of work with everything
 * before it, never a negative time: cpu_us_since()). */
static inline uint64_t thread_cpu_us(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* cpu_us_between() - CPU time from @t0_us to @t1_us (two thread_cpu_us()
 * of one thread), microseconds; 0 if the clock read less. */
static inline uint64_t cpu_us_between(uint64_t t0_us, uint64_t t1_us)
{
	return t1_us > t0_us ? t1_us - t0_us : 0;
}

/* cpu_us_since() - the calling thread's CPU time since @t0_us (a
 * thread_cpu_us() of this thread), microseconds; 0 if the clock read less. */
static inline uint64_t cpu_us_since(uint64_t t0_us)
{
	return cpu_us_between(t0_us, thread_cpu_us());
}

/* cpu_budget_gap_ms() - how long to wait after a piece of work that cost
 * @cost_us of CPU (cpu_us_since()) before doing it again, so that doing it
 * takes at most @permille thousandths of one CPU (10: 1%): @cost_us /
 * @permille ms, held within [@min_ms, @max_ms] (@max_ms >= @min_ms; a
 * @permille of 0 gives @max_ms). For reads whose cost grows with a
 * process's memory (/proc/PID/numa_maps and smaps_rollup walk its page
 * tables: about 10 ms per GiB resident in 4 KiB pages on the development
 * machine, bench_rss_reads), so that a large target is read less often
 * instead of costing a fixed share of a CPU per GiB. */
static inline uint64_t cpu_budget_gap_ms(uint64_t cost_us, unsigned int permille,
					 uint64_t min_ms, uint64_t max_ms)
{
	uint64_t gap_ms = permille ? cost_us / permille : max_ms;

	if (gap_ms < min_ms)
		return min_ms;
	return gap_ms > max_ms ? max_ms : gap_ms;
}

#endif
