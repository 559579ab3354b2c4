/**
 * One template per message kind (SPEC 16), each as plain text and HTML. A link's token is in the
 * message only: the queue never holds it. Everything interpolated into the HTML is escaped.
 */
import { html } from '../../../common/src/html';
import type { MailKind } from './mail-store';

export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

export interface TemplateInput {
  kind: MailKind;
  /** The subject's user id, as the person typed it when registering. */
  uniqueId: string;
  contextId: string;
  /** The link, for the kinds that carry one. */
  link?: string;
  /** Minutes the link works. */
  minutes?: number;
  /** For `changing`: the address asked for (to the old one). */
  newAddress?: string;
}

interface Wording {
  subject: string;
  lines: string[];
  action?: string;
  after: string[];
}

function lifetime(minutes: number | undefined): string {
  if (minutes === undefined) return '';
  return minutes >= 120 ? `${Math.round(minutes / 60)} hours` : `${minutes} minutes`;
}

function wording(input: TemplateInput): Wording {
  const ignore = 'If you did not ask for this, ignore this message: nothing changes.';
  switch (input.kind) {
    case 'reset':
      return {
        subject: 'Choose a new password',
        lines: [`Someone (we hope you) asked to reset the password of the account "${input.uniqueId}".`, `The link below works once, for ${lifetime(input.minutes)}.`],
        action: 'Choose a new password',
        after: [ignore],
      };
    case 'verify':
      return {
        subject: 'Confirm your e-mail address',
        lines: [`Welcome! Confirm this address to finish registering the account "${input.uniqueId}".`, `The link below works once, for ${lifetime(input.minutes)}.`],
        action: 'Confirm my address',
        after: ['If you did not register, ignore this message: the account is removed after 24 hours.'],
      };
    case 'change':
      return {
        subject: 'Confirm your new e-mail address',
        lines: [`The account "${input.uniqueId}" asked to use this address from now on.`, `The link below works once, for ${lifetime(input.minutes)}.`],
        action: 'Confirm this address',
        after: [ignore],
      };
    case 'registered':
      return {
        subject: 'Someone tried to register with your address',
        lines: ['Someone tried to register a new account with this e-mail address, which already belongs to an account.', 'If it was you, log in with your account, or ask for a new password if you forgot it.'],
        after: ['If it was not you, ignore this message: nothing changed.'],
      };
    case 'changing':
      return {
        subject: 'Your e-mail address is being changed',
        lines: [`The account "${input.uniqueId}" asked to use ${input.newAddress ?? 'another address'} instead of this one. It changes only when the link sent there is followed.`],
        after: ['If you did not ask for this, change your password: someone may know it.'],
      };
    case 'taken':
      return {
        subject: 'Someone tried to use your address',
        lines: ['Someone tried to use this e-mail address for an account, but it already belongs to one. Nothing changed.'],
        after: ['If it was you, log in with the account this address belongs to.'],
      };
  }
}

export function render(input: TemplateInput): MailContent {
  const w = wording(input);
  const text = [...w.lines, '', ...(w.action && input.link ? [`${w.action}:`, input.link, ''] : []), ...w.after, ''].join('\n');
  const body = html`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${w.subject}</title></head>
<body style="font-family: system-ui, sans-serif; font-size: 16px; line-height: 1.5; color: #1a1a1a; max-width: 36em; margin: 0 auto; padding: 1em">
<h1 style="font-size: 1.3em">${w.subject}</h1>
${w.lines.map((line) => html`<p>${line}</p>`)}
${w.action && input.link ? html`<p><a href="${input.link}" style="display: inline-block; padding: 0.6em 1.2em; background: #0b57d0; color: #fff; text-decoration: none; border-radius: 4px">${w.action}</a></p>
<p style="font-size: 0.9em">Or copy this address into your browser: <span style="word-break: break-all">${input.link}</span></p>` : ''}
${w.after.map((line) => html`<p style="font-size: 0.9em; color: #444">${line}</p>`)}
</body></html>`;
  return { subject: w.subject, text, html: body.text };
}
