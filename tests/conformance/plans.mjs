// What the conformance launcher does in each client scenario of @modelcontextprotocol/conformance:
// the options given to `tabloop.connectMcp` (what a page embedding tabloop would pass: an
// elicitation answer, pre-registered OAuth credentials) and the tools to call once connected.
// A scenario not named here connects, lists the tools and calls each with arguments that fit
// its input schema (or the calls the scenario's context names, `toolCalls`).

/** The Client ID Metadata Document URL the suite's CIMD scenarios expect as client_id. */
export const CIMD_CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/**
 * @param {string} scenario MCP_CONFORMANCE_SCENARIO
 * @param {object} context MCP_CONFORMANCE_CONTEXT, parsed ({} when unset)
 * @returns {{options: object, calls: 'all' | {name: string, args: object}[], args?: object,
 *   elicitationAnswer?: object, echoSchema?: {from: string, into: string}, direct?: boolean}}
 *   (plain data: it is handed to the page)
 */
export function scenarioPlan(scenario, context) {
  const oauth = { clientMetadataUrl: CIMD_CLIENT_METADATA_URL, clientName: 'tabloop conformance' };
  // Calls the scenario names exactly (some with arguments their schema refuses, e.g. a null):
  // made with the connection's own callTool, as a page would, not through a model's run.
  if (Array.isArray(context.toolCalls)) return { options: {}, direct: true, calls: context.toolCalls.map((c) => ({ name: c.name, args: c.arguments ?? {} })) };
  switch (scenario) {
    case 'initialize':
    case 'json-schema-ref-no-deref':
      return { options: {}, calls: [] };
    case 'json-schema-2020-12-preservation':
      // Echo the schema the client was given for one tool back through another: the suite
      // compares it with what it sent, keyword for keyword.
      return { options: {}, calls: [], echoSchema: { from: 'json_schema_2020_12_tool', into: 'json_schema_echo' } };
    case 'sep-2322-client-request-state':
      return { options: {}, elicitationAnswer: { action: 'accept', content: { confirmed: true } }, calls: 'all' };
    case 'tools_call':
      return { options: {}, calls: 'all', args: { add_numbers: { a: 2, b: 3 } } };
    case 'elicitation-sep1034-client-defaults':
      // A person who submits the form as shown: every field keeps the default it was shown with.
      return { options: {}, elicitationAnswer: { action: 'accept', content: {} }, calls: 'all' };
    case 'auth/pre-registration':
      return { options: { oauth: { ...oauth, clientMetadataUrl: undefined, clientId: context.client_id, clientSecret: context.client_secret } }, calls: 'all' };
    case 'auth/client-credentials-basic':
      return { options: { oauth: { grant: 'client_credentials', clientId: context.client_id, clientSecret: context.client_secret } }, calls: [] };
    case 'auth/client-credentials-jwt':
      return { options: { oauth: { grant: 'client_credentials', clientId: context.client_id, privateKeyPem: context.private_key_pem, signingAlgorithm: context.signing_algorithm } }, calls: [] };
    case 'auth/cross-app-access-complete-flow':
      return {
        options: {
          oauth: {
            grant: 'jwt_bearer',
            clientId: context.client_id,
            clientSecret: context.client_secret,
            idToken: context.idp_id_token,
            idpClientId: context.idp_client_id,
            idpTokenEndpoint: context.idp_token_endpoint,
          },
        },
        calls: 'all',
      };
    default:
      return { options: scenario.startsWith('auth/') ? { oauth } : {}, calls: 'all' };
  }
}
