// Check a caller's token with an API key from Java 11 or later, standard library only:
//   java Introspect.java
// What a gateway or another service does with the token a client sent it.
//   LPS_URL (default http://localhost:3000), LPS_API_KEY (required: an API key holding
//   sys:token:introspect), LPS_TOKEN (required: the client's token), LPS_IP (the client's IP, optional).
// The JSON is read with small regular expressions to stay free of libraries; use Jackson or Gson in
// real code.
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class Introspect {
  static final String URL = env("LPS_URL", "http://localhost:3000");

  public static void main(String[] args) throws Exception {
    String apiKey = required("LPS_API_KEY");
    String token = required("LPS_TOKEN");
    String ip = System.getenv("LPS_IP");

    // 1. The API key in Authorization: Bearer (or X-Api-Key); the client's token and IP in the body.
    String body = "{\"token\":" + quote(token) + (ip == null || ip.isEmpty() ? "" : ",\"ip\":" + quote(ip)) + "}";
    HttpRequest request = HttpRequest.newBuilder(URI.create(URL + "/sys/token/introspect"))
        .header("Content-Type", "application/json").header("Accept-Language", "en")
        .header("Authorization", "Bearer " + apiKey)
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    String answer = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()).body();

    // 2. success false: the API key itself was refused (NOT_LOGGED_IN, FORBIDDEN, RATE_LIMITED...).
    if (!answer.contains("\"success\":true")) {
      System.err.println(field(answer, "code") + ": " + field(answer, "message"));
      System.exit(1);
    }

    // 3. active: the token works, with its user and permission codes; otherwise reason is the code
    //    the client's request would get (answer it with 401).
    if (answer.contains("\"active\":true")) {
      System.out.println("active: " + field(answer, "username") + " (" + String.join(", ", strings(answer, "permissions")) + ")");
    } else {
      System.out.println("inactive: " + field(answer, "reason"));
    }
  }

  /** The first string field of that name in a JSON text (null when it is null or absent). */
  static String field(String json, String name) {
    Matcher m = Pattern.compile("\"" + name + "\":\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(json);
    return m.find() ? m.group(1).replace("\\\"", "\"").replace("\\\\", "\\") : null;
  }

  /** The strings of the first array field of that name. */
  static List<String> strings(String json, String name) {
    List<String> values = new ArrayList<>();
    Matcher array = Pattern.compile("\"" + name + "\":\\[([^\\]]*)\\]").matcher(json);
    if (!array.find()) return values;
    Matcher item = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(array.group(1));
    while (item.find()) values.add(item.group(1));
    return values;
  }

  static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  static String required(String name) {
    String value = System.getenv(name);
    if (value == null || value.isEmpty()) throw new IllegalStateException("set " + name);
    return value;
  }

  static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isEmpty() ? fallback : value;
  }
}
