import { P3P_USER_ATTRIBUTES } from '../../api/user-info';

/**
 * The published JSON Schema of `portlet.json` (`svc config-schema portlet` prints it). Names are
 * JSR-168's `portlet.xml` elements in camelCase.
 */
const name = { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_-]{0,63}$' };
const mode = { type: 'string', enum: ['view', 'edit', 'help', 'VIEW', 'EDIT', 'HELP'] };
const stringMap = { type: 'object', additionalProperties: { type: 'string', maxLength: 4096 }, maxProperties: 256 };

export const portletDescriptorSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'urn:svc:schema:portlet.json',
  title: 'svc portlet application descriptor (portlet.json)',
  type: 'object',
  required: ['portlets'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    application: { ...name, description: 'The application name (PortletContext.getPortletContextName)' },
    initParams: { ...stringMap, description: 'Context init parameters (PortletContext.getInitParameter)' },
    portlets: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['name', 'module', 'title'],
        additionalProperties: false,
        properties: {
          name,
          module: { type: 'string', minLength: 1, maxLength: 1024, description: 'Module path (relative to this file) or package, with #Export' },
          title: { type: 'string', minLength: 1, maxLength: 200 },
          shortTitle: { type: 'string', minLength: 1, maxLength: 100 },
          keywords: { type: 'string', maxLength: 1000 },
          initParams: stringMap,
          supports: {
            type: 'array',
            minItems: 1,
            items: {
              type: 'object',
              required: ['mimeType'],
              additionalProperties: false,
              properties: {
                mimeType: { type: 'string', pattern: '^[a-z]+/[a-z0-9.+-]+$' },
                modes: { type: 'array', items: mode, uniqueItems: true },
              },
            },
          },
          preferences: {
            type: 'array',
            items: {
              type: 'object',
              required: ['name'],
              additionalProperties: false,
              properties: {
                name: { type: 'string', minLength: 1, maxLength: 256 },
                values: { type: 'array', items: { type: ['string', 'null'], maxLength: 4096 } },
                readOnly: { type: 'boolean' },
              },
            },
          },
          preferencesValidator: { type: 'string', minLength: 1, maxLength: 1024 },
          securityRoleRefs: {
            type: 'array',
            items: {
              type: 'object',
              required: ['roleName'],
              additionalProperties: false,
              properties: { roleName: { type: 'string', minLength: 1, maxLength: 256 }, roleLink: { type: 'string', minLength: 1, maxLength: 256 } },
            },
          },
          userAttributes: { type: 'array', uniqueItems: true, items: { type: 'string', enum: [...P3P_USER_ATTRIBUTES] } },
          expirationCache: { type: 'integer', minimum: -1, maximum: 86400 },
        },
      },
    },
  },
} as const;
