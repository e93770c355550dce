// autocannon's `setupClient` for the benches: its clients stop keeping each answer's body.
//
// autocannon 9 appends every body chunk to a string (`PipelinedRequestsQueue.addBody`: `req.body += data`), which
// decodes the bytes as UTF-8 — for a binary answer (an MVT or gzip tile) the slowest case of that decoder. Measured
// against nginx serving a 22 KB binary file, 100 connections, 2026-11-28: 84% of the client's CPU in that decoding,
// 4,620 req/s with it and 47,440 without (mcollina/autocannon#485, open). The benches never read a body (no
// `expectBody`, `verifyBody` or `onResponse`): counting bytes and latencies is autocannon's own, unchanged.
//
// CommonJS and a file of its own because autocannon's worker threads `require` it by path.
'use strict';

module.exports = function discardBodies(client) {
  client.pipelinedRequests.addBody = function keepNoBody() {};
};
