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

/* cpu_us_since() - the calling thread's CPU time since @t0_us (a
 * thread_cpu_us() of this thread), microseconds; 0 if the clock read less. */
static inline uint64_t cpu_us_since(uint64_t t0_us)
{
	uint64_t t_us = thread_cpu_us();

	return t_us > t0_us ? t_us - t0_us : 0;
}

#endif
