/**
 * svc's four subject-management portlets (SPEC 10.4) and their descriptor. `portlet.json` names
 * the modules relative to itself without an extension, so the same file serves the built portal
 * (dist, .js) and the tests (.ts).
 */
import { join } from 'node:path';
import './portlet.json'; // emitted beside the compiled portlets

export { RegistrationPortlet } from './registration/registration-portlet';
export { SelfServicePortlet } from './self-service/self-service-portlet';
export { ForgottenPasswordPortlet } from './forgotten-password/forgotten-password-portlet';
export { UserAdminPortlet } from './user-admin/user-admin-portlet';
export { UserAdminPreferencesValidator } from './user-admin/preferences';

/** The descriptor of the four portlets, as the demo portal loads it. */
export const PORTLETS_DESCRIPTOR = join(__dirname, 'portlet.json');
