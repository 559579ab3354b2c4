/**
 * Loads `portlet.json`: JSON Schema (published as schema.ts), then the checks a schema cannot
 * express, then every class it names. Every problem is reported by path
 * (`portlets[1].module: cannot load ./x.js: …`); any problem stops the portal at start.
 */
import Ajv from 'ajv';
import { deepFreeze, describeSchemaError, readJsonFile } from '../../../../common/src/config/document';
import type { PortletClass } from '../../api/portlet';
import type { PreferencesValidatorClass } from '../../api/preferences-validator';
import { loadClass } from './module-loader';
import { portletDescriptorSchema } from './schema';
import type { PortletApplicationDescriptor, PortletDefinition } from './types';

export class DescriptorError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid portlet descriptor:\n  ${problems.join('\n  ')}`);
    this.name = 'DescriptorError';
  }
}

/** A descriptor with its classes, ready for the container. */
export interface PortletApplication {
  descriptor: PortletApplicationDescriptor;
  portletClass(name: string): PortletClass;
  validatorClass(name: string): PreferencesValidatorClass | undefined;
}

const validate = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(portletDescriptorSchema);

/** Validates a parsed document: the frozen descriptor with its defaults, or DescriptorError. */
export function buildDescriptor(document: unknown): PortletApplicationDescriptor {
  if (!validate(document)) throw new DescriptorError((validate.errors ?? []).map(describeSchemaError));
  const raw = document as unknown as { application?: string; initParams?: Record<string, string>; portlets: Array<Partial<PortletDefinition> & Pick<PortletDefinition, 'name' | 'module' | 'title'>> };
  const portlets: PortletDefinition[] = raw.portlets.map((p) => ({
    ...p,
    initParams: p.initParams ?? {},
    supports: (p.supports ?? [{ mimeType: 'text/html', modes: [] }]).map((s) => ({
      mimeType: s.mimeType,
      // VIEW is every portlet's mode (JSR-168 PLT.8.6), declared or not.
      modes: [...new Set(['view', ...(s.modes ?? []).map((m) => m.toLowerCase())])],
    })),
    preferences: (p.preferences ?? []).map((pref) => ({ name: pref.name, values: pref.values ?? [], readOnly: pref.readOnly ?? false })),
    securityRoleRefs: p.securityRoleRefs ?? [],
    userAttributes: p.userAttributes ?? [],
    expirationCache: p.expirationCache ?? 0,
  }));
  const problems = crossChecks(portlets);
  if (problems.length) throw new DescriptorError(problems);
  return deepFreeze({ application: raw.application ?? 'svc', initParams: raw.initParams ?? {}, portlets });
}

function crossChecks(portlets: PortletDefinition[]): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  portlets.forEach((portlet, i) => {
    if (names.has(portlet.name)) problems.push(`portlets[${i}].name: portlet "${portlet.name}" is defined twice`);
    names.add(portlet.name);
    if (!portlet.supports.some((s) => s.mimeType === 'text/html')) problems.push(`portlets[${i}].supports: the portal aggregates text/html only; declare it`);
    const mimeTypes = portlet.supports.map((s) => s.mimeType);
    mimeTypes.forEach((type, j) => {
      if (mimeTypes.indexOf(type) !== j) problems.push(`portlets[${i}].supports[${j}].mimeType: "${type}" is listed twice`);
    });
    const preferences = portlet.preferences.map((p) => p.name);
    preferences.forEach((pref, j) => {
      if (preferences.indexOf(pref) !== j) problems.push(`portlets[${i}].preferences[${j}].name: preference "${pref}" is defined twice`);
    });
    const roles = portlet.securityRoleRefs.map((r) => r.roleName);
    roles.forEach((role, j) => {
      if (roles.indexOf(role) !== j) problems.push(`portlets[${i}].securityRoleRefs[${j}].roleName: "${role}" is listed twice`);
    });
  });
  return problems;
}

/** Reads, validates and loads `portlet.json` and every class it names. */
export async function loadPortletApplication(path: string): Promise<PortletApplication> {
  const read = readJsonFile(path);
  if ('problems' in read) throw new DescriptorError(read.problems);
  const descriptor = buildDescriptor(read.document);
  const problems: string[] = [];
  const portlets = new Map<string, PortletClass>();
  const validators = new Map<string, PreferencesValidatorClass>();
  await Promise.all(
    descriptor.portlets.map(async (portlet, i) => {
      try {
        portlets.set(portlet.name, (await loadClass(portlet.module, path)) as PortletClass);
      } catch (error) {
        problems.push(`portlets[${i}].module: ${(error as Error).message}`);
      }
      if (portlet.preferencesValidator === undefined) return;
      try {
        validators.set(portlet.name, (await loadClass(portlet.preferencesValidator, path)) as PreferencesValidatorClass);
      } catch (error) {
        problems.push(`portlets[${i}].preferencesValidator: ${(error as Error).message}`);
      }
    }),
  );
  if (problems.length) throw new DescriptorError(problems.sort());
  return {
    descriptor,
    portletClass: (name) => {
      const found = portlets.get(name);
      if (!found) throw new TypeError(`no portlet "${name}" in the descriptor`);
      return found;
    },
    validatorClass: (name) => validators.get(name),
  };
}
