// Preloaded into a benchmarked booking server by the soak section (`node --require`, through
// the server's NODE_OPTIONS only); the product never imports it. On SIGUSR2 the process writes
// one line to stderr, `@memory {json}`, with process.memoryUsage(). It forces no collection:
// heapUsed includes garbage not yet collected, as it is at that moment.
process.on('SIGUSR2', () => {
  process.stderr.write(`@memory ${JSON.stringify(process.memoryUsage())}\n`);
});
