package org.example.textkit;

public final class Padding {

    public static String padLeft(String text, int width) {
        if (text.length() >= width) {
            return text;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = text.length(); i < width; i++) {
            sb.append(' ');
        }
        sb.append(text);
        return sb.toString();
    }
}
