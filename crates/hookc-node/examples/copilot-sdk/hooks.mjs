/**
 * A GitHub Copilot SDK (`@github/copilot-sdk`) `onPreToolUse` handler that
 * guards tool calls with a hookc policy: this directory's guard.yaml, a
 * Copilot guard, compiled once when the module loads.
 *
 *   import { hooks } from './hooks.mjs';
 *   const session = await client.createSession({ hooks });
 *
 * The SDK calls `onPreToolUse(input, invocation)` with the preToolUse
 * payload of Copilot's command hooks, `toolName` and `toolArgs` (an
 * object), and reads the same answer: `permissionDecision` (allow, deny or
 * ask), `permissionDecisionReason`, `modifiedArgs` (the whole rewritten
 * arguments), `additionalContext`; nothing to let the tool run unchanged.
 * So the handler returns what `hookc hook --host copilot --event
 * preToolUse` prints for that payload, `undefined` when it prints nothing.
 *
 * The payload is rebuilt as the command hook gets it, since the Node SDK
 * changes two members on the way (deserializeHookInput in github/copilot-sdk's
 * nodejs/src/session.ts): `timestamp` becomes a Date (back to milliseconds
 * here) and `cwd` becomes `workingDirectory` (older versions and the
 * documentation pass `cwd`, so either is read). `toolArgs` is passed as the
 * object the SDK gives; the CLI sends it as JSON text, which
 * crates/hookc-binding/src/hosts/copilot.rs parses into this same object, so the
 * policy reads `toolArgs.command` either way.
 *
 * A failure is a deny: `hookc hook --host copilot` already answers one when
 * it cannot decide, and an exception is turned into one here, because the
 * SDK catches a handler's exception and runs the tool as if it had
 * answered nothing.
 *
 * Import `hookc` instead of the relative path below in a copy outside the
 * package; the relative path is the package itself in its repository.
 */
import hookc from '../../index.js';
import { fileURLToPath } from 'node:url';

const policy = hookc.compile(fileURLToPath(new URL('guard.yaml', import.meta.url)));

export async function onPreToolUse(input, invocation) {
  try {
    const { toolName, toolArgs, timestamp } = input;
    const payload = {
      sessionId: input.sessionId ?? invocation?.sessionId,
      timestamp: timestamp instanceof Date ? timestamp.getTime() : timestamp,
      cwd: input.workingDirectory ?? input.cwd,
      toolName,
      toolArgs,
    };
    // As JSON text, as the command hook reads it: members the SDK left undefined drop out.
    return policy.hook('copilot', JSON.stringify(payload), { event: 'preToolUse' }).output ?? undefined;
  } catch (error) {
    return { permissionDecision: 'deny', permissionDecisionReason: `hookc: ${error.message}` };
  }
}

export const hooks = { onPreToolUse };
