# Whether a generated block is whole: exits 0 when its begin line (-v b=)
# comes once and its end line (-v e=) once after it, else 1. A begin after
# the end, or either twice, would have a splice take the lines between.
# Used by scripts/splice-block and tools/vm/tables.sh.
$0 == b { nb++; if (ne) bad = 1 }
$0 == e { ne++; if (!nb) bad = 1 }
END { exit !(nb == 1 && ne == 1 && !bad) }
