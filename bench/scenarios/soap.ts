import { autocannonLoad } from '../lib/autocannon';
import { withCore } from '../lib/core';
import { loadRow, type Scenario } from '../lib/scenario';

const SVC_NS = 'urn:svc:soap:v1';
const READ_BODY = `<svc:read xmlns:svc="${SVC_NS}"><svc:contextId>employees</svc:contextId><svc:subjectId>bob</svc:subjectId></svc:read>`;
const VERSIONS: Array<{ name: string; envelopeNs: string; headers: Record<string, string> }> = [
  { name: '1.1', envelopeNs: 'http://schemas.xmlsoap.org/soap/envelope/', headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: `"${SVC_NS}#read"` } },
  { name: '1.2', envelopeNs: 'http://www.w3.org/2003/05/soap-envelope', headers: { 'Content-Type': `application/soap+xml; charset=utf-8; action="${SVC_NS}#read"` } },
];

/**
 * SOAP `read` (SPEC 13) beside the REST READ it mirrors, on the same core in the same run: bob reads
 * his own subject with his USER session cookie. Reported: the SOAP rows' throughput against REST's.
 */
export const soap: Scenario = {
  name: 'soap',
  run: (ctx) =>
    withCore({}, async (core) => {
      const load = { connections: ctx.connections, duration: ctx.duration, warmup: ctx.warmup, expectStatus: 200 };
      const rest = loadRow(
        'READ subject (REST, JSON; SOAP baseline)',
        await autocannonLoad({ ...load, url: `${core.url}/svc/resources/contexts/employees/subjects/bob`, headers: { Cookie: core.cookie('bob'), Accept: 'application/json' } }),
        {},
      );
      const restXml = loadRow(
        'READ subject (REST, XML)',
        await autocannonLoad({ ...load, url: `${core.url}/svc/resources/contexts/employees/subjects/bob`, headers: { Cookie: core.cookie('bob'), Accept: 'application/xml' } }),
        { reference: rest },
      );
      const rows = [rest, restXml];
      for (const version of VERSIONS) {
        const body = `<?xml version="1.0" encoding="UTF-8"?><s:Envelope xmlns:s="${version.envelopeNs}"><s:Body>${READ_BODY}</s:Body></s:Envelope>`;
        const m = await autocannonLoad({ ...load, url: `${core.url}/svc/services/SubjectService`, method: 'POST', headers: { Cookie: core.cookie('bob'), ...version.headers }, body });
        rows.push(loadRow(`SOAP ${version.name} read (same subject)`, m, { reference: rest }));
      }
      return rows;
    }),
};
