import { P3P_USER_ATTRIBUTES } from '../../api/user-info';
import { logSchema } from '../../../../common/src/request-log-settings';

/** The published JSON Schema of the portal's configuration file (`svc config-schema portal`). */
const roles = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 256 }, uniqueItems: true };
const secret = { type: 'string', minLength: 43 };

export const portalConfigSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'urn:svc:schema:portal.json',
  title: 'svc portal configuration',
  type: 'object',
  required: ['portal'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    portal: {
      type: 'object',
      required: ['gateways', 'portalId', 'secret', 'pages'],
      additionalProperties: false,
      properties: {
        host: { type: 'string', minLength: 1 },
        port: { type: 'integer', minimum: 0, maximum: 65535 },
        root: { type: 'string', pattern: '^(/[A-Za-z0-9._~-]+)+$' },
        publicOrigin: { type: 'string', pattern: '^https?://[^/?#]+$' },
        trustProxy: { type: 'array', items: { type: 'string', minLength: 1 } },
        credentialParameters: { type: 'array', items: { type: 'string', minLength: 1 } },
        gateways: { type: 'array', minItems: 1, items: { type: 'string', pattern: '^https?://[^?#]+[^/?#]$' } },
        portalId: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
        secret,
        dataDir: { type: 'string', minLength: 1 },
        descriptor: { type: 'string', minLength: 1 },
        title: { type: 'string', minLength: 1, maxLength: 100 },
        sessionIdleSeconds: { type: 'integer', minimum: 60 },
        sessionAbsoluteSeconds: { type: 'integer', minimum: 60 },
        maxSessions: { type: 'integer', minimum: 1 },
        maxSessionsPerPrincipal: { type: 'integer', minimum: 1 },
        renderTimeoutMs: { type: 'integer', minimum: 1, maximum: 60_000 },
        gatewayTimeoutMs: { type: 'integer', minimum: 1 },
        bodyLimit: { type: 'integer', minimum: 1024 },
        log: logSchema,
        userInfo: {
          type: 'object',
          propertyNames: { enum: [...P3P_USER_ATTRIBUTES] },
          additionalProperties: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_.-]{0,63}$' },
        },
        pages: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['id', 'title', 'windows'],
            additionalProperties: false,
            properties: {
              id: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$' },
              title: { type: 'string', minLength: 1, maxLength: 100 },
              roles,
              windows: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['id', 'portlet'],
                  additionalProperties: false,
                  properties: {
                    id: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$' },
                    portlet: { type: 'string', minLength: 1 },
                    mode: { enum: ['view', 'edit', 'help'] },
                    state: { enum: ['normal', 'maximized', 'minimized'] },
                    roles,
                    visitors: { enum: ['only', 'also', 'never'] },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
} as const;
