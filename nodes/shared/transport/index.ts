export { apiRequest, CREDENTIAL_TYPE } from './request';
export type { ApiContext, ApiRequest } from './request';
export { serializeQuery, withQuery } from './query';
export type { Query, QueryValue } from './query';
