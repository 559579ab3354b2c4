/**
 * The user attribute names of JSR-168 PLT.D (after the W3C P3P 1.0 data schema). A portlet's
 * descriptor declares the ones it reads in `userAttributes`; `PortletRequest.USER_INFO` then maps
 * each declared name the portal can fill to its value. `user.login.id` is the later JSR-286 name
 * for the login name, kept because every portal offers it.
 */
const telecom = (prefix: string): string[] =>
  ['telephone', 'fax', 'mobile', 'pager'].flatMap((kind) =>
    ['intcode', 'loccode', 'number', 'ext', 'comment'].map((part) => `${prefix}.telecom.${kind}.${part}`),
  );

const contact = (prefix: string): string[] => [
  ...['name', 'street', 'city', 'stateprov', 'postalcode', 'country', 'organization'].map((part) => `${prefix}.postal.${part}`),
  ...telecom(prefix),
  `${prefix}.online.email`,
  `${prefix}.online.uri`,
];

export const P3P_USER_ATTRIBUTES: readonly string[] = Object.freeze([
  'user.bdate',
  'user.gender',
  'user.employer',
  'user.department',
  'user.jobtitle',
  'user.name.prefix',
  'user.name.given',
  'user.name.family',
  'user.name.middle',
  'user.name.suffix',
  'user.name.nickName',
  'user.login.id',
  ...contact('user.home-info'),
  ...contact('user.business-info'),
]);
