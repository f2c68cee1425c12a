// The AI SDK's useChat showing a toolview session: the chat id names the session, `resume` reads
// it from toolview's /ai-sdk (the session so far, then live), and @toolview/react draws the parts.
// A permission request is answered through toolview (`permissionAnswerer`): the live stream keeps
// the chat `streaming`, and the AI SDK sends nothing while it streams.
// Open it as use-chat.html?server=http://127.0.0.1:50051&session=demo (the server started with
// --cors-origin naming this page's origin).
import { useChat } from "@ai-sdk/react";
import { permissionAnswerer, ToolviewParts } from "@toolview/react"; // toolview
import "@toolview/react/styles.css"; // toolview
import { DefaultChatTransport } from "ai";
import { createRoot } from "react-dom/client";

const query = new URLSearchParams(location.search);
const server = query.get("server");
const capabilities = "terminal=true&diff=true&read=true&search=true&web=true"; // toolview
const transport = new DefaultChatTransport({
  api: `${server}/ai-sdk`, // toolview
  prepareReconnectToStreamRequest: ({ id }) => ({ api: `${server}/ai-sdk/${id}/stream?${capabilities}` }), // toolview
});

function App() {
  const id = query.get("session") ?? "demo";
  const { messages } = useChat({ id, resume: true, transport });
  const answer = permissionAnswerer(server ?? "", id); // toolview
  return (
    <main>
      {messages.map((m) => (
        <ToolviewParts key={m.id} message={m} onAnswer={answer} /> // toolview
      ))}
    </main>
  );
}

createRoot(document.getElementById("root")!).render(<App />);
