import { configFromEnv } from './config.ts';
import { buildApp } from './app.ts';

const config = configFromEnv();
const { app } = await buildApp(config);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void app.close().then(() => process.exit(0));
  });
}

await app.listen({ port: config.port, host: config.host });
// The address operators open first; `localhost` serves the first demo company.
console.log(`Whistleblower portal running on http://localhost:${config.port}`);
