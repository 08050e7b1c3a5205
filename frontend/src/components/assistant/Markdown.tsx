// The assistant's replies as Markdown, safely: react-markdown builds React
// elements (no HTML string is ever injected), raw HTML in the reply is
// dropped, images are not loaded, and links are shown, not followed (a
// click would navigate the app's window away).
import ReactMarkdown, { type Components } from 'react-markdown';

const components: Components = {
  a: ({ href, children }) => (
    <span className="md-link" title={href}>
      {children}
      {href && children !== href ? ` (${href})` : ''}
    </span>
  ),
};

export function Markdown({ text }: { text: string }) {
  return (
    <div className="chat-md">
      <ReactMarkdown skipHtml disallowedElements={['img']} unwrapDisallowed components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
