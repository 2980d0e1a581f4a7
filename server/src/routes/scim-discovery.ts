import { SCIM } from '@planwarden/engine/identity/scim-resources';

/** RFC 7643 §5: what the SCIM surface supports (PATCH, filter; no bulk, sort, etag, password change). */
export function serviceProviderConfig(base: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: 200 },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [{ type: 'oauthbearertoken', name: 'OAuth Bearer Token', description: "The organization's SCIM token", primary: true }],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

/** RFC 7643 §6: the User and Group resource types. */
export function resourceTypes(base: string) {
  const type = (name: 'User' | 'Group', schema: string) => ({
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    id: name,
    name,
    endpoint: `/${name}s`,
    schema,
    meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/${name}` },
  });
  return { schemas: [SCIM.list], totalResults: 2, startIndex: 1, itemsPerPage: 2, Resources: [type('User', SCIM.user), type('Group', SCIM.group)] };
}

const attr = (name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name,
  type,
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

/** RFC 7643 §7: the attributes this service reads and returns. */
export function schemas(base: string) {
  const user = {
    id: SCIM.user,
    name: 'User',
    description: 'A member of the organization',
    attributes: [
      attr('userName', 'string', { required: true, uniqueness: 'server' }),
      attr('displayName', 'string'),
      attr('active', 'boolean'),
      attr('externalId', 'string', { caseExact: true }),
      attr('name', 'complex', { subAttributes: [attr('formatted', 'string'), attr('givenName', 'string'), attr('familyName', 'string')] }),
      attr('emails', 'complex', { multiValued: true, subAttributes: [attr('value', 'string'), attr('type', 'string'), attr('primary', 'boolean')] }),
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${SCIM.user}` },
  };
  const group = {
    id: SCIM.group,
    name: 'Group',
    description: 'A team of the organization',
    attributes: [
      attr('displayName', 'string', { required: true }),
      attr('externalId', 'string', { caseExact: true }),
      attr('members', 'complex', {
        multiValued: true,
        subAttributes: [attr('value', 'string', { mutability: 'immutable' }), attr('display', 'string', { mutability: 'readOnly' })],
      }),
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${SCIM.group}` },
  };
  return { schemas: [SCIM.list], totalResults: 2, startIndex: 1, itemsPerPage: 2, Resources: [user, group] };
}
