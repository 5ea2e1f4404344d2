/**
 * Refuses a Node the portal does not support, before anything else loads (main.ts
 * imports this first). `npm start` runs the Node pinned in optionalDependencies
 * (node_modules/.bin/node); this catches `node build/server/main.js` started by hand
 * with an older system Node. docs/decisions/runtime.md.
 */
import { logLine } from './logging.ts';

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12) || major === 23) {
  logLine(
    'fatal',
    `portal: Node ${process.versions.node} is not supported; use Node 24 LTS (or 22 LTS from 22.12). ` +
      '`npm start` runs the Node 24 that `npm ci` installs into node_modules/.bin.',
  );
  process.exit(1);
}
