/**
 * Errors → SCIM errors (RFC 7644 §3.12), beside problem.ts and from the same hierarchy: the only place
 * a SCIM answer's error is made. The status and detail are problemDetails()'s (unexposed errors stay a
 * bare 500); `scimType` is the one RFC 7644 names for the code, or the one the error carries in its
 * `scimType` extension (invalidPath, noTarget, tooMany: SCIM's own refinements of invalid_request).
 */
import { problemDetails } from './problem';
import type { ProblemCode } from './wire/problem-codes';

export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

export type ScimType = 'invalidFilter' | 'tooMany' | 'uniqueness' | 'mutability' | 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'invalidValue' | 'invalidVers' | 'sensitive';

/** The scimType of each code that has one (RFC 7644 Table 9); other codes carry none. */
const SCIM_TYPES: Partial<Record<ProblemCode, ScimType>> = {
  invalid_filter: 'invalidFilter',
  conflict: 'uniqueness',
  attribute_not_writable: 'mutability',
  malformed_body: 'invalidSyntax',
  invalid_attributes: 'invalidValue',
  invalid_subject_id: 'invalidValue',
  weak_password: 'invalidValue',
  invalid_request: 'invalidValue',
};

export interface ScimErrorBody {
  schemas: [typeof SCIM_ERROR_SCHEMA];
  status: string;
  scimType?: ScimType;
  detail?: string;
}

export interface ScimErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: ScimErrorBody;
}

/** Any error as a SCIM error: status as a string (RFC 7644 §3.12), scimType where RFC 7644 names one. */
export function scimError(thrown: unknown): ScimErrorAnswer {
  const { status, headers, body } = problemDetails(thrown);
  const given = typeof body.scimType === 'string' ? (body.scimType as ScimType) : undefined;
  const scimType = given ?? SCIM_TYPES[body.code as ProblemCode];
  const detail = body.detail ?? body.title;
  const messages = body.errors?.map((e) => `${e.path}: ${e.message}`).join('; ');
  return {
    status,
    headers,
    body: { schemas: [SCIM_ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail: messages ? `${detail} (${messages})` : detail },
  };
}
