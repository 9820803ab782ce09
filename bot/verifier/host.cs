// The Dafny 2.x verifier kept alive: runs Dafny.exe's own Main once per request, in one process.
//
// Started as `RUNTIME host.exe PATH/Dafny.exe`; compiled by bot/verifier/server.py with mcs (a dependency of
// Debian's dafny package). Each request is three lines on standard input:
//   verify
//   base64(UTF-8 of FOLDER NUL ARG1 NUL ... NUL ARGN)
//   [[DAFNY-CLIENT: EOM]]
// and gets one line on standard output: `OK EXITCODE BASE64(OUTPUT)` or `FAILURE BASE64(TEXT)`, where OUTPUT
// is everything Dafny wrote to its console while it ran `Dafny.exe ARG1 ... ARGN` in FOLDER. The output is
// encoded so that nothing a program makes Dafny print can end or forge an answer.
using System;
using System.IO;
using System.Reflection;
using System.Text;

static class SpecScoreHost {
  static int Main(string[] argv) {
    var utf8 = new UTF8Encoding(false);
    MethodInfo driver = Assembly.LoadFrom(argv[0]).GetType("Microsoft.Dafny.DafnyDriver")
        .GetMethod("Main", BindingFlags.Public | BindingFlags.Static);
    var answers = new StreamWriter(Console.OpenStandardOutput(), utf8);
    var requests = new StreamReader(Console.OpenStandardInput(), utf8);
    while (true) {
      string verb = requests.ReadLine(), payload = requests.ReadLine(), end = requests.ReadLine();
      if (verb == null || payload == null || end == null) return 0;
      if (verb != "verify" || end != "[[DAFNY-CLIENT: EOM]]") return 2;  // not our client: stop
      string[] fields = utf8.GetString(Convert.FromBase64String(payload)).Split('\0');
      string[] args = new string[fields.Length - 1];
      Array.Copy(fields, 1, args, 0, args.Length);
      var console = new StringWriter();
      string answer;
      try {
        Environment.CurrentDirectory = fields[0];
        TextWriter shared = TextWriter.Synchronized(console);  // Boogie may print from its prover threads
        Console.SetOut(shared);
        Console.SetError(shared);
        int code = (int)driver.Invoke(null, new object[] { args });
        answer = "OK " + code + " " + Convert.ToBase64String(utf8.GetBytes(console.ToString()));
      } catch (Exception e) {
        answer = "FAILURE " + Convert.ToBase64String(utf8.GetBytes(console.ToString() + e));
      }
      answers.Write(answer + "\n");
      answers.Flush();
    }
  }
}
