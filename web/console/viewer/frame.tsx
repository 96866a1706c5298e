// The MCP Apps host (SPEC §4.7) on @modelcontextprotocol/ext-apps' AppBridge: a type's viewer, the
// `ui://` resource of the server that defines the type, runs in /console/sandbox inside
// <iframe sandbox="allow-scripts"> (an opaque origin: no access to this page, its storage or cookies,
// and a CSP with no network). The host answers ui/initialize, sends the artifact as the tool result,
// and proxies the viewer's tools/call and resources/read to its own server, through the platform under
// the person's session (the platform's own artifact viewer, issue #35, is read at /mcp). The viewer
// never sees a token.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Problem } from '../commits';
import { callTool, readResource, viewerHtml } from './calls';
import { frameHeights, frameSizer } from './size';

/** What POST /artifacts/{id}/open says about the artifact type's viewer, when it has one. */
export interface ViewerRef {
  server_id: string;
  uri: string;
}

interface Shown {
  id: string;
  title: string;
}

const host = { name: 'platform-console', version: '1.0.0' };

export function ViewerFrame({ artifact, viewer }: { artifact: Shown; viewer: ViewerRef }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [height, setHeight] = useState(frameHeights.initial);

  useEffect(() => {
    const iframe = frame.current!;
    setHeight(frameHeights.initial);
    const bridge = new AppBridge(
      null,
      host,
      { serverTools: {}, serverResources: {} },
      { hostContext: { displayMode: 'inline', platform: 'web' } },
    );
    bridge.oncalltool = (params) => callTool(viewer.server_id, params.name, params.arguments);
    bridge.onreadresource = async (params) => ({
      contents: (await readResource(viewer.server_id, params.uri)) as { uri: string; text: string }[],
    });
    let sent = false;
    bridge.onsandboxready = () => {
      // Once per frame: a viewer repeating the sandbox's message would make the host read its page again and again.
      if (sent) return;
      sent = true;
      viewerHtml(viewer.server_id, viewer.uri).then(
        (html) => bridge.sendSandboxResourceReady({ html }),
        (err: Error) => setError(`The viewer could not be loaded: ${err.message}`),
      );
    };
    bridge.oninitialized = () => {
      void bridge.sendToolInput({ arguments: { artifact_id: artifact.id } });
      void bridge.sendToolResult({ content: [{ type: 'text', text: JSON.stringify(artifact) }] });
    };
    // The viewer's size reports, minus any that only chase the host's own resizes (./size.ts).
    const size = frameSizer(setHeight);
    bridge.onsizechange = ({ height: h }) => size(h);
    // Listen first, then load the frame: its first message is not missed.
    void bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!)).then(() => {
      iframe.src = '/console/sandbox';
    });
    return () => void bridge.close();
  }, [viewer.server_id, viewer.uri, artifact]);

  return (
    <section class="viewer" aria-label={`Viewer for ${artifact.title}`}>
      <Problem error={error} />
      <iframe
        ref={frame}
        class="viewer-frame"
        title={`${artifact.title}, in its type's viewer`}
        sandbox="allow-scripts"
        referrerpolicy="no-referrer"
        style={{ height: `${height}px` }}
      />
    </section>
  );
}
