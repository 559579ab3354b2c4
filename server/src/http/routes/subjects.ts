import type { Request, Response } from 'express';
import { MalformedBody } from '../../../../common/src/errors';
import type { StoredSubject } from '../../subjects/subject';
import { etagOf, subjectInput, type SubjectInput } from '../../subjects/subject-operations';
import { documentBody, integerParam, queryParam } from '../body';
import { csvColumns, sendCsv, wantsCsv } from '../csv';
import { step } from '../exchange';
import type { RestResource } from '../rest-resource';
import { notModified, sendDocument } from '../respond';
import type { HttpServices } from '../services';
import { READ_XML_ROOT, type ReadIncluded } from '../../../../common/src/wire/subject-parts';
import { includedParts, readIncludes } from './read-includes';
import { addStatus, includesStatus } from './subject-status';

type Services = Pick<HttpServices, 'subjects' | 'subjectOperations' | 'decisions' | 'accounts' | 'secondFactors' | 'email'>;

/** `{"subject":{"uniqueId":…,"attributes":{…}}}` and nothing else. */
function subjectBody(req: Request): SubjectInput {
  const doc = documentBody(req);
  if (!doc) throw new MalformedBody('a subject body is required');
  const keys = Object.keys(doc);
  if (keys.length !== 1 || keys[0] !== 'subject') throw new MalformedBody('the body must be {"subject": {...}}', { errors: keys.filter((k) => k !== 'subject').map((k) => ({ path: k, message: 'unknown member' })) });
  return subjectInput(doc.subject);
}

/**
 * The subject and its ETag; with `included` (a READ's `include`: what it added beside `"subject"`,
 * maybe nothing) under one XML root, `<read>`, whatever was added, as SEARCH's `<search>`.
 */
function sendSubject(s: Services, req: Request, res: Response, status: number, contextId: string, subject: StoredSubject, included?: ReadIncluded): void {
  res.setHeader('ETag', etagOf(subject));
  sendDocument(req, res, status, { subject: s.subjects.view(contextId, subject), ...included }, included ? { xmlRoot: READ_XML_ROOT } : {});
}

/** `{base}/contexts/{c}/subjects`: CREATE (a registration from an anonymous session) and SEARCH. */
export const subjectCollection = (s: Services): RestResource => ({
  path: '/contexts/:contextId/subjects',
  methods: { POST: 'CREATE', GET: 'SEARCH' },
  fits: ['CREATE', 'SEARCH'],
  name: 'this resource',
  target: (ids) => `contexts/${ids.contextId}/subjects`,
  csv: true,
  perform: {
    POST: step('createSubject', async ({ req, res, ids, state, mount }) => {
      const contextId = ids.contextId!;
      const created = await s.subjectOperations.create(state, contextId, subjectBody(req));
      // SPEC 16: a registration that verifies its address says the same whether it was new or taken.
      if (!('uniqueId' in created)) return sendDocument(req, res, 202, { status: created.status }, { xmlRoot: 'registration' });
      res.setHeader('Location', `${mount}/contexts/${encodeURIComponent(contextId)}/subjects/${encodeURIComponent(created.uniqueId)}`);
      sendSubject(s, req, res, 201, contextId, created);
    }),
    GET: step('searchSubjects', async (x) => {
      const { req, res, ids, config } = x;
      const contextId = ids.contextId!;
      const criteria = { search: queryParam(req, 'search'), filter: queryParam(req, 'filter'), sort: queryParam(req, 'sort'), order: queryParam(req, 'order') };
      if (wantsCsv(req)) return sendCsv(req, res, contextId, csvColumns(s.subjects.context(contextId).config), s.subjectOperations.pages(contextId, criteria));
      const { defaultQuantity, maxQuantity } = config.settings.search;
      const offset = integerParam(req, 'offset', 0);
      const quantity = integerParam(req, 'quantity', defaultQuantity, maxQuantity);
      const withStatus = includesStatus(queryParam(req, 'include'));
      const body = await s.subjectOperations.search(contextId, { ...criteria, offset, quantity });
      sendDocument(req, res, 200, withStatus ? await addStatus(s, x.state, contextId, body) : body, { xmlRoot: 'search' });
    }),
  },
});

/** `{base}/contexts/{c}/subjects/{s}`: READ (with If-None-Match), UPDATE (with If-Match), DELETE. */
export const subject = (s: Services): RestResource => ({
  path: '/contexts/:contextId/subjects/:subjectId',
  methods: { GET: 'READ', PUT: 'UPDATE', DELETE: 'DELETE' },
  fits: ['READ', 'UPDATE', 'DELETE'],
  name: 'a subject',
  target: (ids) => `contexts/${ids.contextId}/subjects/${ids.subjectId}`,
  perform: {
    GET: step('readSubject', async ({ req, res, ids, state, config }) => {
      const asked = readIncludes(queryParam(req, 'include'));
      const found = await s.subjects.read(ids.contextId!, ids.subjectId!);
      if (asked.size) {
        // Beside the subject, each part when the caller may READ its own target: one request for a page (issue 28).
        const included = await includedParts(s, state, config, ids.contextId!, ids.subjectId!, asked);
        res.setHeader('Cache-Control', 'no-store');
        return sendSubject(s, req, res, 200, ids.contextId!, found, included);
      }
      if (!notModified(req, etagOf(found))) return sendSubject(s, req, res, 200, ids.contextId!, found);
      res.setHeader('ETag', etagOf(found));
      res.status(304).end();
    }),
    PUT: step('updateSubject', async ({ req, res, ids, state }) => {
      const updated = await s.subjectOperations.update(state, ids.contextId!, ids.subjectId!, subjectBody(req), req.headers['if-match']);
      sendSubject(s, req, res, 200, ids.contextId!, updated);
    }),
    DELETE: step('deleteSubject', async ({ res, ids, state }) => {
      await s.subjectOperations.delete(state, ids.contextId!, ids.subjectId!);
      res.status(204).end();
    }),
  },
});
