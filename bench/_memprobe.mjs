// Preloaded by bench/startup.ts: on SIGUSR2 the server writes its memory use to stderr as one JSON line.
process.on('SIGUSR2', () => {
  const m = process.memoryUsage();
  process.stderr.write(`WB_MEMORY ${JSON.stringify(m)}\n`);
});
