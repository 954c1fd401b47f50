'use strict';
// The thread that statement-thread.ts starts (see there for why it exists). Plain JavaScript, so
// it runs as it is however nerkh runs: from its sources through tsx, from the bundle, in the tests.
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);

const messageOf = (error) => (error instanceof Error ? error.message : String(error));

let db;
let runAll;
try {
  db = new Database(workerData.file);
  for (const pragma of workerData.pragmas) db.pragma(pragma);
  const statements = workerData.statements.map((sql) => db.prepare(sql));
  runAll = db.transaction((batch) => {
    batch.forEach((rows, index) => {
      for (const row of rows) statements[index].run(...row);
    });
  });
} catch (error) {
  // Said in a message: an error thrown out of a thread reaches the main thread without SQLite's text.
  parentPort.postMessage({ fatal: messageOf(error) });
  process.exit(1);
}

parentPort.on('message', (message) => {
  if (message.close) {
    db.close();
    parentPort.close();
    return;
  }
  try {
    runAll.immediate(message.batch);
    parentPort.postMessage({ id: message.id });
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: messageOf(error) });
  }
});
