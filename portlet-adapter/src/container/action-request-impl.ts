import type { ActionRequest } from '../api/action-request';
import { IllegalStateException } from '../api/exceptions';
import { PortletRequestImpl, type RequestParts } from './portlet-request-impl';

export interface ActionBody {
  /** The posted bytes (empty for a form post, whose fields are already the parameters). */
  bytes: Buffer;
  contentType: string | null;
  /** True for `application/x-www-form-urlencoded`: the body was consumed as parameters. */
  isForm: boolean;
}

export class ActionRequestImpl extends PortletRequestImpl implements ActionRequest {
  #encoding: string | null;
  #read = false;

  constructor(
    parts: RequestParts,
    private readonly body: ActionBody,
  ) {
    super(parts);
    this.#encoding = /charset=([^;]+)/i.exec(body.contentType ?? '')?.[1]?.trim().toLowerCase() ?? null;
  }

  getPortletInputStream(): Buffer {
    if (this.body.isForm) throw new IllegalStateException('a form post\'s body is read through the parameters');
    this.#read = true;
    return Buffer.from(this.body.bytes);
  }

  getReader(): string {
    const bytes = this.getPortletInputStream();
    return new TextDecoder(this.#encoding ?? 'utf-8').decode(bytes);
  }

  getCharacterEncoding(): string | null {
    return this.#encoding;
  }

  setCharacterEncoding(encoding: string): void {
    if (this.#read) throw new IllegalStateException('the body was already read');
    this.#encoding = encoding;
  }

  getContentType(): string | null {
    return this.body.contentType;
  }

  getContentLength(): number {
    return this.body.bytes.length;
  }
}
