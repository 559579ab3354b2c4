/**
 * `application/problem+xml` is RFC 9457's XML format (issue 27 item 6, SPEC 3): the core's and the
 * gateway's XML problems validate with xmllint against the RELAX NG schema of the RFC's Appendix B
 * (test/wire/schemas/rfc9457-problem.rng), lists are `<i>` items; the client library reads both that
 * format and svc's earlier one; and a body that breaks is reported where it breaks.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import type { RunningGateway } from '../../gateway/src/index';
import { SvcClientError } from '../../client/src/errors';
import { Connection } from '../../client/src/index';
import { parseJson } from '../../common/src/wire/json';
import { PROBLEM_XML_NS, problemXml, readProblemXml } from '../../common/src/wire/problem-xml';
import { parseXml } from '../../common/src/wire/xml';
import { MalformedBody } from '../../common/src/errors';
import { sessionCookies } from '../authorization/helpers';
import { startTestServer, TEST_CREDENTIALS, type TestServer } from '../helpers/core-server';
import { describeWithService, XMLLINT_PATH, xmllintRequirement } from '../helpers/services';
import { send, startCoreAndGateway, stopCoreAndGateway } from '../gateway/gateway-helpers';
import { spawnSync } from 'node:child_process';

const RNG = join(__dirname, 'schemas', 'rfc9457-problem.rng');

/** xmllint's complaint against the RFC's RELAX NG schema, or undefined when the document is valid. */
function rfcInvalidity(xml: string): string | undefined {
  const run = spawnSync(XMLLINT_PATH, ['--noout', '--nonet', '--relaxng', RNG, '-'], { input: xml, encoding: 'utf8' });
  return run.status === 0 ? undefined : `${run.stderr}\n${xml}`;
}

const malformedDetail = (parse: () => unknown): string => {
  try {
    parse();
  } catch (error) {
    if (error instanceof MalformedBody) return error.message;
    throw error;
  }
  throw new Error('parsed');
};

const isDocument = (text: string) => {
  try {
    parseJson(text);
    return true;
  } catch {
    return false;
  }
};

describe('where a body breaks', () => {
  test.each([
    ['a JSON body cut off inside a member name', '{"subject":{"uniqueId":"x","attr', 'the body ends at line 1, column 33 (character 32)'],
    ['a JSON body cut off inside a literal, on its second line', '{"a":1,\n"b":tru', 'the body ends at line 2, column 8 (character 15)'],
    ['a JSON body cut off after a value', '{"a":1,\n"b":[1,2', 'the body ends at line 2, column 9 (character 16)'],
    ['an XML body cut off inside an open element', '<subject>\n<uniqueId>x</uniqueId>\n<attributes><mail>a</mail>', 'the body ends at line 3, column 27 (character 59)'],
  ])('%s: the end of the body, not line 1, column 1', (_what, body, where) => {
    const parse = body.startsWith('<') ? () => parseXml(body) : () => parseJson(body);
    const detail = malformedDetail(parse);
    expect(detail).toContain(where);
    expect(detail).toMatch(/cut off/);
  });

  test('any JSON document cut off anywhere is reported as ending where it was cut (property)', () => {
    const documents = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 4 }), { minKeys: 1, maxKeys: 4 }).map((d) => JSON.stringify(d));
    fc.assert(
      fc.property(documents.filter((text) => isDocument(text)), fc.nat(), (text, cut) => {
        const at = 1 + (cut % (text.length - 1));
        expect(malformedDetail(() => parseJson(text.slice(0, at)))).toContain(`(character ${at}) before the document is complete`);
      }),
      { numRuns: 300 },
    );
  });

  test.each([
    ['a stray character in JSON', '{"a": 1x}', 'at line 1, column 8 (character 7)'],
    ['a bad escape on the third line', '{"a":\n1,\n"b":"\\q"}', 'at line 3, column 7 (character 15)'],
    ['a control character in a string', '{"a":"x\u0001"}', 'at line 1, column 8 (character 7)'],
    ['text after the document', '{"a":1} x', 'at line 1, column 9 (character 8)'],
  ])('%s: the first character that is not JSON', (_what, body, where) => {
    const detail = malformedDetail(() => parseJson(body));
    expect(detail).toBe(`malformed JSON ${where}`);
    // Our words only: nothing of V8's ("Unexpected token", "JSON.parse", "position").
    expect(detail).not.toMatch(/Unexpected|JSON\.parse|position/);
  });
});

describe('the client library reads both problem+xml forms', () => {
  const problem = { type: 'urn:svc:problem:invalid_attributes', title: 'Invalid attributes', status: 400, code: 'invalid_attributes', detail: 'mail: not an address', errors: [{ path: 'attributes.mail', message: 'not an address' }, { path: 'attributes.x', message: 'unknown' }] };

  test("RFC 9457's format: namespace urn:ietf:rfc:7807, <i> items, nested objects", () => {
    const xml = problemXml(problem);
    expect(xml).toContain(`<problem xmlns="${PROBLEM_XML_NS}">`);
    expect(xml).toContain('<errors><i><path>attributes.mail</path><message>not an address</message></i><i>');
    expect(readProblemXml(xml)).toEqual({ problem: { ...problem, status: '400' } });
  });

  test("svc's earlier form: no namespace, <value> items", () => {
    const old =
      '<?xml version="1.0" encoding="UTF-8"?><problem><type>urn:svc:problem:invalid_attributes</type><title>Invalid attributes</title><status>400</status><code>invalid_attributes</code>' +
      '<detail>mail: not an address</detail><errors><value><path>attributes.mail</path><message>not an address</message></value><value><path>attributes.x</path><message>unknown</message></value></errors></problem>';
    expect(readProblemXml(old)).toEqual({ problem: { ...problem, status: '400' } });
  });

  test('a null member is left out; text is escaped', () => {
    const xml = problemXml({ type: 'urn:x', title: 'a < b & c', status: 409, code: 'conflict', lockedUntil: null });
    expect(xml).not.toContain('lockedUntil');
    expect(xml).toContain('<title>a &lt; b &amp; c</title>');
    expect(readProblemXml(xml)).toEqual({ problem: { type: 'urn:x', title: 'a < b & c', status: '409', code: 'conflict' } });
  });
});

describeWithService(xmllintRequirement(), 'problem+xml against RFC 9457 Appendix B (xmllint)', () => {
  let server: TestServer;
  let cookies: Awaited<ReturnType<typeof sessionCookies>>;

  beforeAll(async () => {
    server = await startTestServer();
    cookies = await sessionCookies(server);
  });
  afterAll(async () => server.stop());

  const xmlRequest = (path: string, init: RequestInit = {}) => fetch(`${server.baseUrl}/resources${path}`, { ...init, headers: { accept: 'application/xml', cookie: cookies.ALICE, ...(init.headers as Record<string, string>) } });

  test('the RELAX NG schema refuses the earlier form (it has no namespace)', () => {
    expect(rfcInvalidity('<problem><type>urn:x</type></problem>')).toMatch(/namespace/);
  });

  test.each([
    ['404 not_found', () => xmlRequest('/contexts/employees/subjects/ghost'), 404, 'not_found'],
    ['401 access_denied for an anonymous session', () => fetch(`${server.baseUrl}/resources/contexts/employees/subjects/alice`, { headers: { accept: 'application/xml', cookie: cookies.ANON } }), 401, 'access_denied'],
    ['400 invalid_attributes with errors', () => xmlRequest('/contexts/employees/subjects', { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<subject><uniqueId>pxml</uniqueId><attributes><frob>x</frob></attributes></subject>' }), 400, 'invalid_attributes'],
    ['400 malformed_body for a cut-off body', () => xmlRequest('/contexts/employees/subjects', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"subject":{"uniqueId":"x"' }), 400, 'malformed_body'],
  ])('the core: %s is RFC 9457 XML', async (_what, request, status, code) => {
    const res = await request();
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+xml/);
    const xml = await res.text();
    expect(rfcInvalidity(xml)).toBeUndefined();
    expect(readProblemXml(xml)).toMatchObject({ problem: { status: String(status), code } });
    if (code === 'invalid_attributes') expect(xml).toMatch(/<errors><i><path>[^<]+<\/path><message>/);
    if (code === 'malformed_body') expect(xml).toContain('the body ends at line 1, column 27 (character 26)');
  });

  test('the client library raises the typed error with the problem read from RFC 9457 XML', async () => {
    const connection = await Connection.open({ kind: 'password', user: 'alice', password: TEST_CREDENTIALS.users.alice }, { config: { baseUrl: server.baseUrl, clientId: 'svc-api', secret: TEST_CREDENTIALS.clients['svc-api'] } });
    try {
      const error = await connection.get('ghost').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SvcClientError);
      expect(error).toMatchObject({ status: 404, code: 'not_found', problem: { status: 404, type: 'urn:svc:problem:not_found' } });
    } finally {
      await connection.close();
    }
  });
});

describeWithService(xmllintRequirement(), "the gateway's problem+xml against RFC 9457 Appendix B (xmllint)", () => {
  let core: TestServer;
  let gateway: RunningGateway;

  beforeAll(async () => ({ core, gateway } = await startCoreAndGateway({})));
  afterAll(() => stopCoreAndGateway({ core, gateway }));

  test('a refusal of its own (no portal assertion) is RFC 9457 XML when the portal asks for XML', async () => {
    const answer = await send(gateway, '/gw/api/session', { assertion: false, headers: { accept: 'application/xml' } });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+xml/);
    expect(rfcInvalidity(answer.text)).toBeUndefined();
    expect(readProblemXml(answer.text)).toMatchObject({ problem: { status: String(answer.status) } });
  });
});
