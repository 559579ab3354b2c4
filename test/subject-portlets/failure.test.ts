/** svc's refusals as the sentences a window shows (SPEC 10.3): data-driven, one row per kind of answer. */
import { clientFailure, errorFromProblem } from '../../client/src/errors';
import { describeFailure, UNAVAILABLE } from '../../portlet-adapter/src/portlets/shared/failure';

/** What the gateway client throws for a problem answer. */
const problem = (status: number, code: string, errors?: Array<{ path: string; message: string }>) => errorFromProblem(status, { status, code, errors });
const words = { doing: 'delete bob', notFound: 'bob does not exist.', conflict: 'That name is taken.', stale: 'Changed meanwhile.', invalid: 'The current password is not correct.', fieldOf: { password: 'newPassword' }, labels: { newPassword: 'New password' } };

const cases: Array<[string, unknown, { message: string; fields?: Record<string, string> }]> = [
  ['access_denied', problem(401, 'access_denied'), { message: 'You are not allowed to delete bob.' }],
  ['forbidden', problem(403, 'forbidden'), { message: 'You are not allowed to delete bob.' }],
  ['a 502 from the gateway', problem(502, 'bad_gateway'), { message: UNAVAILABLE }],
  ['a 504 from the gateway', problem(504, 'gateway_timeout'), { message: UNAVAILABLE }],
  ['no answer at all', clientFailure('transport_error', 'connect ECONNREFUSED'), { message: UNAVAILABLE }],
  ['not_found', problem(404, 'not_found'), { message: 'bob does not exist.' }],
  ['conflict', problem(409, 'conflict'), { message: 'That name is taken.' }],
  ['precondition_failed', problem(412, 'precondition_failed'), { message: 'Changed meanwhile.' }],
  ['too_many_requests', problem(429, 'too_many_requests'), { message: 'Too many attempts; wait a few minutes and try again.' }],
  ['session_expired', problem(401, 'session_expired'), { message: 'Your session has ended; log in again.' }],
  [
    'weak_password, by field',
    problem(400, 'weak_password', [{ path: 'password', message: 'must be at least 8 characters' }, { path: 'password', message: 'is too common' }]),
    { message: 'Choose another password.', fields: { newPassword: 'New password must be at least 8 characters. New password is too common.' } },
  ],
  [
    'invalid_attributes, by field',
    problem(400, 'invalid_attributes', [{ path: 'subject.attributes.mail', message: 'not an e-mail address' }, { path: 'subject.attributes.givenName', message: 'required' }]),
    { message: 'Correct the marked fields and send the form again.', fields: { mail: 'E-mail address is not an e-mail address.', givenName: 'Given name is required.' } },
  ],
  ['attribute_not_writable', problem(400, 'attribute_not_writable', [{ path: 'subject.attributes.roles', message: 'not writable' }]), { message: 'Correct the marked fields and send the form again.', fields: { roles: 'Roles cannot be changed by you.' } }],
  ['invalid_request without fields', problem(400, 'invalid_request'), { message: 'The current password is not correct.' }],
  ['an unknown 500', problem(500, 'internal_error'), { message: 'Something went wrong while trying to delete bob; try again.' }],
  ['a 400 of a code this portal does not know', problem(400, 'otp_required_someday'), { message: 'Check what you entered and try again.' }],
  ['not an svc failure, whatever its members', Object.assign(new Error('boom'), { status: 404, code: 'not_found' }), { message: 'Something went wrong while trying to delete bob; try again.' }],
];

test.each(cases)('%s', (_name, error, expected) => {
  expect(describeFailure(error, words)).toEqual({ message: expected.message, fields: expected.fields ?? {} });
});

test('no sentence carries a problem document, a status line or a stack', () => {
  const error = errorFromProblem(500, { status: 500, code: 'internal_error', detail: 'at Object.<anonymous> (/x.js:1:1)' });
  const { message } = describeFailure(error, words);
  expect(message).not.toMatch(/\{|500|at Object|urn:/);
});
