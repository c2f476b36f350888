package org.example.textkit;

public final class Truncate {

    public static String to(String text, int limit) {
        if (text.length() > limit) {
            text = text.substring(0, limit);
        }
        return text;
    }
}
