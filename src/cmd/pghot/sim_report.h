/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pghot sim's output: the seeds' tables on stdout, the JSON file, the
 * gnuplot PNGs. sim.c runs the cases; sim_report.c prints what they gave.
 */
#ifndef PGHOT_CMD_PGHOT_SIM_REPORT_H
#define PGHOT_CMD_PGHOT_SIM_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "sim/sim.h"

/** sim_print_tables() - the scenario's tables (shape by workload) to @f. */
void sim_print_tables(FILE *f, const struct sim_scenario *sc, const struct sim_result *r,
		      size_t n);

/**
 * sim_write_json() - {"scenario": ..., "cases": [...]} into @path.
 * Return: 0, or -1 after printing why.
 */
int sim_write_json(const char *path, const struct sim_scenario *sc,
		   const struct sim_result *r, size_t n);

/**
 * sim_write_plots() - promotions.png and dram_share.png (one line per case)
 * in @dir, made by gnuplot from data files written beside them.
 * Return: 0, or -1 after printing why.
 */
int sim_write_plots(const char *dir, const struct sim_scenario *sc,
		    const struct sim_result *r, size_t n);

/* The DRAM-only reference's time, or 0 when the scenario has none. */
double sim_ref_time(const struct sim_result *r, size_t n);

#endif
