/**
 * What svc's SCIM service provider says of itself (RFC 7643 §5–§7, RFC 7644 §4): the schema URNs, the
 * ServiceProviderConfig, the two ResourceTypes and the two Schemas, limited to the attributes svc
 * keeps (SPEC 14). Built per request from the location base, so `meta.location` names this server.
 */
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const LIST_RESPONSE = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const SERVICE_PROVIDER_CONFIG_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
export const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
export const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

export const SCIM_MEDIA_TYPE = 'application/scim+json';

type Json = Record<string, unknown>;

interface AttributeSpec {
  name: string;
  type?: 'string' | 'boolean' | 'complex' | 'reference' | 'dateTime';
  multiValued?: boolean;
  required?: boolean;
  caseExact?: boolean;
  mutability?: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
  returned?: 'always' | 'never' | 'default' | 'request';
  uniqueness?: 'none' | 'server' | 'global';
  description: string;
  subAttributes?: AttributeSpec[];
  referenceTypes?: string[];
  canonicalValues?: string[];
}

function attribute(spec: AttributeSpec): Json {
  const type = spec.type ?? 'string';
  return {
    name: spec.name,
    type,
    multiValued: spec.multiValued ?? false,
    description: spec.description,
    required: spec.required ?? false,
    ...(type === 'string' || type === 'reference' ? { caseExact: spec.caseExact ?? false } : {}),
    ...(spec.canonicalValues ? { canonicalValues: spec.canonicalValues } : {}),
    ...(spec.subAttributes ? { subAttributes: spec.subAttributes.map(attribute) } : {}),
    mutability: spec.mutability ?? 'readWrite',
    returned: spec.returned ?? 'default',
    ...(type === 'string' || type === 'reference' ? { uniqueness: spec.uniqueness ?? 'none' } : {}),
    ...(spec.referenceTypes ? { referenceTypes: spec.referenceTypes } : {}),
  };
}

const USER_ATTRIBUTES: AttributeSpec[] = [
  { name: 'userName', required: true, uniqueness: 'server', description: 'The login name the identity provider gives; unique, compared case-insensitively. Never changes the id.' },
  {
    name: 'name',
    type: 'complex',
    description: "The user's name.",
    subAttributes: [
      { name: 'formatted', mutability: 'readOnly', description: 'The given and family names, as one text.' },
      { name: 'givenName', description: 'The given name.' },
      { name: 'familyName', description: 'The family name.' },
    ],
  },
  { name: 'displayName', description: 'The name shown for the user.' },
  {
    name: 'emails',
    type: 'complex',
    multiValued: true,
    description: 'The primary (or first) address is kept.',
    subAttributes: [
      { name: 'value', description: 'The address.' },
      { name: 'type', canonicalValues: ['work', 'home', 'other'], description: 'Always work when returned.' },
      { name: 'primary', type: 'boolean', description: 'Always true when returned: one address is kept.' },
    ],
  },
  { name: 'active', type: 'boolean', description: 'False: the subject is disabled and its sessions ended.' },
  { name: 'password', mutability: 'writeOnly', returned: 'never', caseExact: true, description: "Set through the context's password policy; never returned." },
  {
    name: 'groups',
    type: 'complex',
    multiValued: true,
    mutability: 'readOnly',
    description: "The groups (the context's roles) the user is a member of.",
    subAttributes: [
      { name: 'value', mutability: 'readOnly', description: "The group's id." },
      { name: '$ref', type: 'reference', referenceTypes: ['Group'], mutability: 'readOnly', description: "The group's URI." },
      { name: 'display', mutability: 'readOnly', description: "The group's displayName." },
    ],
  },
];

const GROUP_ATTRIBUTES: AttributeSpec[] = [
  { name: 'displayName', required: true, uniqueness: 'server', description: 'The role the group stands for.' },
  {
    name: 'members',
    type: 'complex',
    multiValued: true,
    description: 'The subjects holding the role.',
    subAttributes: [
      { name: 'value', mutability: 'immutable', description: "The member's id." },
      { name: '$ref', type: 'reference', referenceTypes: ['User'], mutability: 'immutable', description: "The member's URI." },
      { name: 'display', mutability: 'readOnly', description: "The member's userName." },
      { name: 'type', mutability: 'immutable', canonicalValues: ['User'], description: 'User.' },
    ],
  },
];

/** RFC 7643 §7: a Schema resource. */
function schemaResource(base: string, id: string, name: string, description: string, attributes: AttributeSpec[]): Json {
  return { schemas: [SCHEMA_SCHEMA], id, name, description, attributes: attributes.map(attribute), meta: { resourceType: 'Schema', location: `${base}/Schemas/${id}` } };
}

export function schemas(base: string): Json[] {
  return [schemaResource(base, USER_SCHEMA, 'User', 'User Account', USER_ATTRIBUTES), schemaResource(base, GROUP_SCHEMA, 'Group', 'Group', GROUP_ATTRIBUTES)];
}

export function resourceTypes(base: string): Json[] {
  return [
    { schemas: [RESOURCE_TYPE_SCHEMA], id: 'User', name: 'User', endpoint: '/Users', description: "The context's subjects", schema: USER_SCHEMA, meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` } },
    { schemas: [RESOURCE_TYPE_SCHEMA], id: 'Group', name: 'Group', endpoint: '/Groups', description: "The context's roles", schema: GROUP_SCHEMA, meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` } },
  ];
}

/** RFC 7643 §5: PATCH, filter (with maxResults), sort and ETags yes; bulk, changePassword (the password is an attribute) no. */
export function serviceProviderConfig(base: string, maxResults: number): Json {
  return {
    schemas: [SERVICE_PROVIDER_CONFIG_SCHEMA],
    documentationUri: 'https://github.com/svc/svc/blob/main/docs/scim.md',
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults },
    changePassword: { supported: false },
    sort: { supported: true },
    etag: { supported: true },
    authenticationSchemes: [{ type: 'oauthbearertoken', name: 'Bearer token', description: 'A token made by svc gen-secret --scim, sent as Authorization: Bearer <token>', primary: true }],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}
