/**
 * The envelope reader in process (fast-check): any mutation of a valid envelope (markup, namespaces,
 * comments, CDATA, declarations, duplicate attributes, reserved names) is either read or refused
 * with a 400 of the one error hierarchy, never another exception (which would be a 500).
 */
import fc from 'fast-check';
import { SvcError } from '../../common/src/errors';
import { membersOf, readEnvelope, SOAP_11, SOAP_12 } from '../../server/src/http/soap/envelope';
import { securityHeaderOf } from '../../server/src/http/soap/security-header';
import { envelope, SVC_NS } from './helpers';

const BODY = `<svc:read xmlns:svc="${SVC_NS}"><svc:contextId>employees</svc:contextId><svc:subjectId>bob</svc:subjectId></svc:read>`;
const HEADER = `<svc:Security xmlns:svc="${SVC_NS}"><svc:clientId>a</svc:clientId><svc:token>t</svc:token></svc:Security>`;
const PIECES = ['<', '>', '&', '&amp;', '&#0;', '"', "'", '/', ':', 'xmlns:x="urn:x"', '<!-- c -->', '<![CDATA[x]]>', '<?xml version="1.0"?>', '\u0000', 'é', '<value>', '</value>', 'nil="true"', 'xsi:nil="1"', '__proto__', 'constructor', 'toString', ' ', '\n', 'xmlns=""', 'xmlns:s=""', 'a="1" a="2"', '<x/>', 's:mustUnderstand="1"'];
const edit = fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), remove: fc.integer({ min: 0, max: 8 }), insert: fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 6 })) });

test('a mutated envelope is read or refused with a 400, never another exception', () => {
  fc.assert(
    fc.property(fc.constantFrom(SOAP_11, SOAP_12), fc.array(edit, { minLength: 1, maxLength: 5 }), (version, edits) => {
      let text = envelope(version.name, BODY, HEADER);
      for (const e of edits) {
        const at = Math.floor(e.at * text.length);
        text = text.slice(0, at) + e.insert + text.slice(at + e.remove);
      }
      try {
        const read = readEnvelope(text, version);
        securityHeaderOf(read.headers, version);
        membersOf(read.operation);
      } catch (error) {
        if (!(error instanceof SvcError)) throw new Error(`${String(error)} for ${JSON.stringify(text)}`);
        expect(error.status).toBe(400);
      }
    }),
    { numRuns: 3000 },
  );
});
