// Creates an empty PGlite database in the folder argv[2] and exits: the first start's
// initdb, in a process of its own (server/db/database.ts, createPGliteApart). Plain
// JavaScript beside the server's code, so tsx and the compiled build (which copies it)
// run the same file. argv[3]: PGlite's start parameters as JSON, or "null".
import { PGlite } from '@electric-sql/pglite';

const dataDir = process.argv[2];
const startParams = JSON.parse(process.argv[3] ?? 'null');
const db = await PGlite.create({ dataDir, ...(startParams ? { startParams } : {}) });
await db.close();
