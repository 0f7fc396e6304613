// URLs the http_fetch policy must refuse, ask about or allow, shared by the Node and browser runs.

export const ALLOWED = ['allowed.example', '*.allowed.example'];
export const SSRF_REFUSE = [
  'http://127.0.0.1/', 'http://127.1/', 'http://127.0.0.1:8080/', 'http://127.255.255.254/', 'http://localhost/',
  'http://LOCALHOST./', 'http://foo.localhost/', 'http://[::1]/', 'http://[0:0:0:0:0:0:0:1]/', 'http://[::]/',
  'http://0.0.0.0/', 'http://0.0.0.0:80/', 'http://0/', 'http://10.0.0.1/', 'http://10.255.255.255/', 'http://172.16.0.1/',
  'http://172.31.255.255/', 'http://192.168.1.1/', 'http://169.254.169.254/latest/meta-data/', 'http://169.254.0.1/',
  'http://100.64.0.1/', 'http://224.0.0.1/', 'http://255.255.255.255/', 'http://[fc00::1]/', 'http://[fd12:3456::1]/',
  'http://[fe80::1]/', 'http://[febf::1]/', 'http://[ff02::1]/', 'http://[::ffff:127.0.0.1]/', 'http://[::ffff:7f00:1]/',
  'http://[::ffff:169.254.169.254]/', 'http://[::ffff:10.0.0.1]/', 'http://[::ffff:192.168.0.1]/', 'http://[::127.0.0.1]/',
  'http://[64:ff9b::7f00:1]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[2002:7f00:1::]/', 'http://[2002:a9fe:a9fe::1]/',
  'http://2130706433/', 'http://0x7f000001/', 'http://0x7f.1/', 'http://017700000001/', 'http://0177.0.0.1/',
  'http://0x7f.0x0.0x0.0x1/', 'http://0177.1/', 'http://3232235777/', 'http://0xa9.0xfe.0xa9.0xfe/', 'http://2852039166/',
  'http://127.0.0.1.nip.io/', 'http://10-0-0-1.sslip.io/', 'http://app.169.254.169.254.nip.io/', 'http://localtest.me/',
  'http://allowed.example@127.0.0.1/', 'http://allowed.example:pw@evil.test/', 'http://user@allowed.example/',
  'http://allowed.example%40127.0.0.1/', 'ftp://allowed.example/', 'file:///etc/passwd', 'javascript:alert(1)',
  'data:text/plain,hi', 'ws://allowed.example/', 'blob:http://allowed.example/x', 'http://router/', 'http://printer.local/',
  'http://metadata.google.internal/', 'http://nas.lan/', 'http://box.home.arpa/', 'http://[::1%25eth0]/',
  'not a url', '', 'http://', '//allowed.example/',
];
export const SSRF_APPROVAL = ['https://other.example/', 'https://allowed.example.evil.test/', 'https://evilallowed.example/'];
export const SSRF_ALLOW = ['https://allowed.example/x', 'http://allowed.example/', 'https://api.allowed.example/v1?q=1',
  'http://allowed.example\\@127.0.0.1/'];
