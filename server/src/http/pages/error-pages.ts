import { html, type Html } from './html';

/** What a page shows of an error, taken from its problem details (http/error-handler.ts). */
export interface PageProblem {
  status: number;
  headers: Record<string, string>;
  title: string;
  detail?: string;
  errors: Array<{ path: string; message: string }>;
}

/** The problem inside a form or an error page: its detail and each field's message. */
export function problemBlock(problem: PageProblem): Html {
  const items = problem.errors.map((e) => html`<li>${fieldName(e.path)}: ${e.message}</li>`);
  return html`<div class="problem" role="alert"><p>${problem.detail ?? problem.title}</p>${items.length ? html`<ul>${items}</ul>` : ''}</div>`;
}

/** `subject.attributes.mail` → `mail`: the form's name for the field. */
function fieldName(path: string): string {
  return path.replace(/^subject\.attributes\./, '').replace(/^subject\./, '');
}

/** The page of a request that ends in an error (a refused page, a cross-site post, a failure). */
export function errorPage(problem: PageProblem): Html {
  return problemBlock(problem);
}
