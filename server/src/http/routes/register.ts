import type { Response } from 'express';
import { NotFound } from '../../../../common/src/errors';
import type { ContextConfig, SvcConfig } from '../../config/types';
import type { AttributeInput } from '../../subjects/attributes';
import { formBody, queryParam, readBody } from '../body';
import { formProblem } from '../error-handler';
import { step, type Step } from '../exchange';
import { asPage, authorizePage } from '../page-access';
import { sameOrigin } from '../same-origin';
import type { PageProblem } from '../pages/error-pages';
import { sendPage } from '../pages/html';
import { checkMailPage, registeredPage, registerForm, type RegisterField } from '../pages/register-pages';
import type { HttpServices } from '../services';

/** A registration form is a handful of short fields. */
const BODY_LIMIT = 64 * 1024;
/** Form parameters of attributes carry this prefix, so no attribute name collides with `context` or `uniqueId`. */
const ATTRIBUTE = 'a.';

/** The context a visitor registers in: the one named, or the first open to registration. */
function chosenContext(config: SvcConfig, id: string | undefined): ContextConfig {
  const open = config.contexts.filter((context) => context.registration.enabled);
  const found = id === undefined ? open[0] : open.find((context) => context.id === id);
  if (!found) throw new NotFound(id === undefined ? 'no context is open to registration' : `context ${id} is not open to registration`);
  return found;
}

/** `givenName` → `Given name`. */
const labelOf = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().replace(/^./, (c) => c.toUpperCase());

/** The user id, then each registration attribute the definition knows, as the form shows them. */
function fieldsOf(context: ContextConfig, given: Record<string, string>): RegisterField[] {
  const defined = context.definition.attributes;
  const fields: RegisterField[] = [{ name: 'uniqueId', label: 'User id', type: 'text', multivalued: false, required: true, maxLength: 256, value: given.uniqueId }];
  for (const name of context.registration.attributes) {
    if (name === 'uniqueId' || !Object.hasOwn(defined, name)) continue;
    const definition = defined[name];
    const secret = definition.mutability === 'writeOnly';
    const isPassword = name === context.definition.password;
    fields.push({
      name: ATTRIBUTE + name,
      label: labelOf(name),
      type: isPassword || secret ? 'password' : definition.type === 'email' ? 'email' : 'text',
      multivalued: definition.multivalued,
      required: definition.required || isPassword,
      maxLength: definition.maxLength,
      // Passwords and other write-only values are never sent back to the browser.
      value: secret ? undefined : given[ATTRIBUTE + name],
    });
  }
  return fields;
}

/** The posted attributes as the subject service takes them; the service alone decides what is allowed. */
function attributesOf(context: ContextConfig, params: Record<string, string>): AttributeInput {
  const defined = context.definition.attributes;
  const out: AttributeInput = Object.create(null);
  for (const [key, value] of Object.entries(params)) {
    if (!key.startsWith(ATTRIBUTE)) continue;
    const name = key.slice(ATTRIBUTE.length);
    if (Object.hasOwn(defined, name) && defined[name].multivalued) {
      const values = value.split(/\r?\n/).map((v) => v.trim()).filter((v) => v !== '');
      if (values.length) out[name] = values;
    } else if (value !== '') out[name] = value;
  }
  return out;
}

function sendForm(config: SvcConfig, res: Response, status: number, context: ContextConfig, given: Record<string, string> = {}, problem?: PageProblem): void {
  const action = `${config.server.contextRoot}/anon/register`;
  const others = config.contexts.filter((c) => c.registration.enabled).map((c) => ({ id: c.id, href: `${action}?context=${encodeURIComponent(c.id)}` }));
  if (problem) for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
  sendPage(res, status, 'Register', registerForm({ action, contextId: context.id, others, fields: fieldsOf(context, given), problem }));
}

/** GET {base}/anon/register: the form of the context named by `?context=` (default: the first open to registration). */
const registerFormPage = step('registerForm', ({ req, res, config }) => sendForm(config, res, 200, chosenContext(config, queryParam(req, 'context'))));

/**
 * POST {base}/anon/register (SPEC section 7): authorized as a CREATE in the context (a refused
 * visitor is sent to log in), then the same registration as the REST CREATE; a correctable refusal
 * shows the form again with what was given (never a password).
 */
const registerSubmit = (s: Pick<HttpServices, 'decisions' | 'registrations'>): Step =>
  step('register', async (x) => {
    const { res, config, state } = x;
    const params = formBody(x.req);
    const context = chosenContext(config, params.context);
    const root = config.server.contextRoot;
    const self = `${root}/anon/register?context=${encodeURIComponent(context.id)}`;
    if (!(await authorizePage(s.decisions, x, 'CREATE', `contexts/${context.id}/subjects`, self))) return;
    try {
      const created = await s.registrations.register({ contextId: context.id, uniqueId: params.uniqueId, attributes: attributesOf(context, params), session: state.session, peer: state.peer });
      if (!('uniqueId' in created)) return sendPage(res, 202, 'Check your mail', checkMailPage(context.id, `${root}/anon/verify`));
      sendPage(res, 201, 'Registered', registeredPage(created.uniqueId, context.id, `${root}/login`));
    } catch (error) {
      const problem = formProblem(error);
      if (!problem) throw error;
      sendForm(config, res, problem.status, context, params, problem);
    }
  });

/** `{base}/anon/register` (SPEC section 7), by method: errors are answered as pages. */
export const registerRoutes = (s: Pick<HttpServices, 'decisions' | 'registrations'>) => ({
  GET: [asPage, registerFormPage],
  POST: [asPage, readBody(BODY_LIMIT), sameOrigin, registerSubmit(s)],
});
