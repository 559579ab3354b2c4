/**
 * Property: for any session, operation, context and subject, SOAP's isAllowed (1.1 and 1.2, by the
 * real client) answers exactly what REST's check answers for the same session (the same decision,
 * reason, session type and `exists`), and the real SOAP operation meets that decision at
 * authorization. As in test/authorization/check-property.test.ts, the subject service's writes are
 * a stub throwing a distinctive 418, so a real call that passes authorization is seen without
 * changing anything, and the store dump proves nothing was written.
 */
import fc from 'fast-check';
import { OPERATIONS, type Operation } from '../../common/src/wire/operations';
import { call, CONTEXTS, dumpStore, sessionCookies, stubSubjectWrites, SUBJECTS, WHO, type Who } from '../authorization/helpers';
import { startTestServer, type TestServer } from '../helpers/core-server';
import { soapClient, VERSIONS, type OperationName, type Outcome, type SoapVersionName, type SvcSoapClient } from './helpers';

let server: TestServer;
let clients: Record<string, SvcSoapClient>;
let cookies: Record<Who, string>;
/** Every outcome the run met: the property must have seen allows, denials and refusals. */
const seen = new Set<string>();

beforeAll(async () => {
  server = await startTestServer();
  const who = await sessionCookies(server);
  cookies = who;
  clients = {};
  for (const w of WHO) for (const v of VERSIONS) clients[`${w} ${v}`] = await soapClient(server.baseUrl, v, { cookie: who[w] });
  stubSubjectWrites(server);
});
afterAll(async () => {
  jest.restoreAllMocks();
  await server.stop();
});

const SOAP_OPERATION: Record<Operation, OperationName> = { CREATE: 'create', READ: 'read', UPDATE: 'update', DELETE: 'delete', SEARCH: 'search' };

/** An answer in comparable terms: the check's members, or the refusal's status and code. */
function restAnswer(status: number, body: Record<string, unknown> | undefined): unknown {
  if (status === 200 || body?.decision === 'DENY') return body;
  return { refused: status, code: body?.code };
}

function soapAnswer(outcome: Outcome): unknown {
  if (outcome.fault) return { refused: outcome.fault.status, code: outcome.fault.code };
  return outcome.result;
}

/**
 * What the real call met at authorization: refused there, refused before it (the context names
 * nothing), or let through (an answer, the write stub's 418, or the operation's own refusal: a
 * subject that does not exist).
 */
function realOutcome(outcome: Outcome, ctx: string): string {
  if (outcome.fault?.code === 'access_denied') return 'DENY';
  if (ctx === 'nowhere') return `fault ${outcome.fault?.code ?? 'none'}`;
  return 'ALLOW';
}

test('SOAP isAllowed equals the REST check for the same session, and the real SOAP call meets it', async () => {
  const before = await dumpStore(server);
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...WHO),
      fc.constantFrom(...OPERATIONS),
      fc.constantFrom(...CONTEXTS),
      fc.constantFrom(...SUBJECTS),
      fc.constantFrom<SoapVersionName>(...VERSIONS),
      async (w, op, ctx, sid, version) => {
        const one = op === 'READ' || op === 'UPDATE' || op === 'DELETE';
        const rest = await call(`${server.baseUrl}/resources/contexts/${ctx}/subjects${one ? `/${sid}` : ''}?isAllowed=${op}`, { method: 'GET', headers: { cookie: cookies[w] } });
        const client = clients[`${w} ${version}`];
        const soap = await client.call('isAllowed', { operation: op, contextId: ctx, ...(one ? { subjectId: sid } : {}) });
        expect(soapAnswer(soap)).toEqual(restAnswer(rest.status, rest.body));

        const args: Record<string, unknown> = { contextId: ctx };
        if (one) args.subjectId = sid;
        if (op === 'CREATE') args.subject = { uniqueId: 'newbie', attributes: { mail: 'newbie@example.com', password: 'Newbie-pass-123' } };
        if (op === 'UPDATE') args.subject = { attributes: { givenName: 'Changed' } };
        const real = realOutcome(await client.call(SOAP_OPERATION[op], args), ctx);
        const expected = rest.status === 404 ? 'fault not_found' : (rest.body?.decision as string);
        expect(real).toBe(expected);
        seen.add(real);
      },
    ),
    { numRuns: 80 },
  );
  expect(await dumpStore(server)).toBe(before);
  expect([...seen].sort()).toEqual(['ALLOW', 'DENY', 'fault not_found']);
});
