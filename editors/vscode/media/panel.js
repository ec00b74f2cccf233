// Runs inside the answer webview: renders what the extension sends, forwards user actions.
(function () {
  const vscode = acquireVsCodeApi();
  const conversation = document.getElementById('conversation');
  const form = document.getElementById('ask');
  const question = document.getElementById('question');
  const send = document.getElementById('send');
  const stop = document.getElementById('stop');

  window.addEventListener('message', (event) => {
    const message = event.data;
    if (message.type !== 'render') {
      return;
    }
    const atBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 40;
    conversation.innerHTML = message.html;
    send.disabled = message.busy;
    stop.disabled = !message.busy;
    if (atBottom) {
      window.scrollTo(0, document.body.scrollHeight);
    }
  });

  conversation.addEventListener('click', (event) => {
    const link = event.target.closest('a[href]');
    if (link) {
      event.preventDefault();
      vscode.postMessage({ type: 'open', href: link.getAttribute('href') });
    }
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = question.value.trim();
    if (text) {
      vscode.postMessage({ type: 'ask', question: text });
      question.value = '';
    }
  });

  question.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  stop.addEventListener('click', () => vscode.postMessage({ type: 'stop' }));
  document.getElementById('clear').addEventListener('click', () => vscode.postMessage({ type: 'clear' }));
})();
