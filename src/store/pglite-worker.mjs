// PGlite on its own thread. PostgreSQL compiled to WebAssembly runs synchronously on whatever thread
// hosts it; here it cannot stall the HTTP event loop, and it uses the machine's second core.
// Plain JavaScript on purpose: a worker thread does not inherit the TypeScript loader of the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

const db = await PGlite.create(workerData.location);
// Statements are executed one at a time, in arrival order; the main thread relies on that order.
let chain = Promise.resolve();

parentPort.on('message', (message) => {
  chain = chain.then(async () => {
    if (message.op === 'close') {
      await db.close();
      parentPort.postMessage({ id: message.id, rows: [] });
      parentPort.close();
      return;
    }
    try {
      const result = await db.query(message.sql, message.params);
      parentPort.postMessage({ id: message.id, rows: result.rows });
    } catch (error) {
      parentPort.postMessage({ id: message.id, error: { message: error.message, code: error.code } });
    }
  });
});
parentPort.postMessage({ ready: true });
