import { Html, html } from '../../../../common/src/html';

export interface WindowControl {
  label: string;
  href: string;
  current: boolean;
}

export interface WindowModel {
  id: string;
  title: string;
  state: 'normal' | 'maximized' | 'minimized';
  modes: WindowControl[];
  states: WindowControl[];
  /** Short messages above the portlet's markup (or instead of it, when it failed). */
  messages: string[];
  /** The portlet's fragment: already markup (trusted portlet code), or absent. */
  markup?: string;
}

/**
 * One portlet window (Pluto's portlet tag): a `section` labelled by its `h2` title, a title bar with
 * the mode and state controls as links (keyboard-usable), and the content unless minimized.
 */
export function windowFrame(model: WindowModel): Html {
  const titleId = `portal-${model.id}-title`;
  const controls = (label: string, items: WindowControl[]) =>
    items.map((item) =>
      item.current
        ? html`<li><span aria-current="true">${item.label}</span></li>`
        : html`<li><a href="${item.href}" aria-label="${item.label} ${label}">${item.label}</a></li>`,
    );
  const content =
    model.state === 'minimized'
      ? new Html('')
      : html`<div class="portlet-content">${model.messages.map((text) => html`<p class="portlet-msg-error" role="alert">${text}</p>`)}${new Html(model.markup ?? '')}</div>`;
  return html`<section class="portlet portlet-${model.state}" id="portal-${model.id}" aria-labelledby="${titleId}">
<div class="portlet-title-bar"><h2 class="portlet-title" id="${titleId}">${model.title}</h2>
<nav class="portlet-controls" aria-label="${model.title} window"><ul>${controls(model.title, [...model.modes, ...model.states])}</ul></nav></div>
${content}</section>`;
}
