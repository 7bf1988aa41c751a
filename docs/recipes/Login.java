// Log in and call one API from Java 11 or later, standard library only:  java Login.java
//   LPS_URL (default http://localhost:3000), LPS_ACCOUNT (default admin), LPS_PASSWORD (required);
//   LPS_IMG_ID and LPS_IMG_CODE when the captcha is on (from POST /sys/captcha, read by a person).
// The JSON is read with two small regular expressions to stay free of libraries; use Jackson or
// Gson in real code.
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Cipher;
import javax.crypto.spec.OAEPParameterSpec;
import javax.crypto.spec.PSource;

public class Login {
  static final String URL = env("LPS_URL", "http://localhost:3000");
  static final HttpClient HTTP = HttpClient.newHttpClient();

  public static void main(String[] args) throws Exception {
    String account = env("LPS_ACCOUNT", "admin");
    String password = System.getenv("LPS_PASSWORD");
    if (password == null) throw new IllegalStateException("set LPS_PASSWORD");

    // 1. The public key: SPKI PEM, so X509EncodedKeySpec reads its base64 body.
    String pem = field(post("/sys/publicKey", "{}", null), "publicKey");
    String body = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
    PublicKey key = KeyFactory.getInstance("RSA").generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(body)));

    // 2. RSA-OAEP with SHA-256 for the hash AND for MGF1. Spell the parameters out: the name
    //    "RSA/ECB/OAEPWithSHA-256AndMGF1Padding" alone gives MGF1 with SHA-1 in the JDK's provider,
    //    and the service answers VALIDATION_FAILED naming `password`.
    Cipher rsa = Cipher.getInstance("RSA/ECB/OAEPPadding");
    rsa.init(Cipher.ENCRYPT_MODE, key,
        new OAEPParameterSpec("SHA-256", "MGF1", MGF1ParameterSpec.SHA256, PSource.PSpecified.DEFAULT));
    String cipher = Base64.getEncoder().encodeToString(rsa.doFinal(password.getBytes(StandardCharsets.UTF_8)));

    // 3. The login. data.accessToken is the session token (null while a second factor is due).
    String captcha = System.getenv("LPS_IMG_ID") == null ? ""
        : ",\"imgId\":" + quote(System.getenv("LPS_IMG_ID")) + ",\"imgCode\":" + quote(env("LPS_IMG_CODE", ""));
    String login = post("/sys/login", "{\"account\":" + quote(account) + ",\"password\":" + quote(cipher) + captcha + "}", null);
    String token = field(login, "accessToken");
    if (token == null) throw new IllegalStateException("second factor needed: POST /sys/login/mfa {mfaToken, code}");

    // 4. Any other operation: the token in the Admin-Token header (or Authorization: Bearer).
    System.out.println("logged in as " + field(post("/sys/me/info", "{}", token), "username"));

    // 5. Log out: the token is dead from now on.
    post("/sys/logout", "{}", token);
  }

  /** POSTs JSON and returns the envelope's text; an envelope with success false ends the program. */
  static String post(String path, String json, String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(URL + path))
        .header("Content-Type", "application/json").header("Accept-Language", "en")
        .POST(HttpRequest.BodyPublishers.ofString(json));
    if (token != null) request.header("Admin-Token", token);
    String answer = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString()).body();
    if (!answer.contains("\"success\":true")) {
      System.err.println(field(answer, "code") + ": " + field(answer, "message"));
      System.exit(1);
    }
    return answer;
  }

  /** The first string field of that name in a JSON text (null when it is null or absent). */
  static String field(String json, String name) {
    Matcher m = Pattern.compile("\"" + name + "\":\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(json);
    if (!m.find()) return null;
    return m.group(1).replace("\\n", "\n").replace("\\/", "/").replace("\\\"", "\"").replace("\\\\", "\\");
  }

  static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isEmpty() ? fallback : value;
  }
}
