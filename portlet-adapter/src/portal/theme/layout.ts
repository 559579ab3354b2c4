import { Html, html } from '../../../../common/src/html';

export interface LayoutModel {
  root: string;
  portalTitle: string;
  /** The page's h1 and part of the document title. */
  title: string;
  /** Pages the visitor may see, in order; `current` marks this one. */
  navigation: { href: string; title: string; current: boolean }[];
  /** Who is logged in, or null for a visitor (then `loginHref`). */
  user: { name: string; logoutCsrf: string } | null;
  loginHref?: string;
  body: Html;
}

/**
 * The one HTML page every answer of the portal uses: header (portal name, the user, log out),
 * navigation, `<main>`. No inline script or style: the CSP allows the portal's own stylesheet and its
 * one script (theme/script.ts, progressive enhancement: every page works without it).
 */
export function layout(model: LayoutModel): string {
  const nav = model.navigation.length
    ? html`<nav class="portal-nav" aria-label="Pages"><ul>${model.navigation.map(
        (item) => html`<li><a href="${item.href}"${new Html(item.current ? ' aria-current="page"' : '')}>${item.title}</a></li>`,
      )}</ul></nav>`
    : new Html('');
  const user = model.user
    ? html`<div class="portal-user"><span>Signed in as <strong>${model.user.name}</strong></span><form method="post" action="${model.root}/logout"><input type="hidden" name="_csrf" value="${model.user.logoutCsrf}"><button type="submit">Log out</button></form></div>`
    : model.loginHref
      ? html`<p class="portal-user"><a href="${model.loginHref}">Log in</a></p>`
      : new Html('');
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${model.title} – ${model.portalTitle}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="${model.root}/theme.css"><script src="${model.root}/portal.js" defer></script></head>
<body><a class="skip-link" href="#main">Skip to content</a>
<header class="portal-header"><p class="portal-name"><a href="${model.root}/">${model.portalTitle}</a></p>${user}</header>
${nav}
<main id="main" class="portal-main" tabindex="-1"><h1>${model.title}</h1>
${model.body}
</main>
<footer class="portal-footer">${model.portalTitle}</footer>
</body></html>
`.text;
}
