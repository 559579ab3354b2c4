import type { PortletRequest } from './portlet-request';

/**
 * `javax.portlet.ActionRequest`: a request to `processAction`. A form post's fields are its
 * parameters (with the action URL's); the raw body is there for other content types.
 */
export interface ActionRequest extends PortletRequest {
  /** The body as bytes; `IllegalStateException` for a form post, whose body is already the parameters. */
  getPortletInputStream(): Buffer;
  /** The body as text in its character encoding; `IllegalStateException` for a form post. */
  getReader(): string;
  getCharacterEncoding(): string | null;
  /** `IllegalStateException` once the body was read. */
  setCharacterEncoding(encoding: string): void;
  getContentType(): string | null;
  getContentLength(): number;
}
