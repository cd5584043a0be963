// CPU time from Linux's /proc, for the benchmarks that say how busy a process or a thread was.

/** CPU seconds (user + system) a process or thread has used so far, from its `stat` file (/proc/<pid>/stat, /proc/<pid>/task/<tid>/stat). */
export function cpuSecondsOf(stat: string): number {
  const fields = stat.split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
}
